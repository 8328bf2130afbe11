// The tournament pages' texts (issue 34), in the club's languages; anything else is the
// club's catalogue's (i18n.js): `texts(t)` answers a t() that looks here first.

export const TEXTS = {
  en: {
    "organiser.title": "Tournaments", "organiser.new": "New tournament", "organiser.name": "Name",
    "organiser.tables": "Tables", "organiser.games": "Games per player", "organiser.preset": "Rules",
    "organiser.players": "Players (nicknames, guest:Name for a guest)", "organiser.roster": "Everybody on the roster",
    "organiser.create": "Create", "organiser.list": "The club's tournaments", "organiser.round": "Round {round}",
    "organiser.waiting": "not started", "organiser.playing": "playing", "organiser.finished": "finished",
    "organiser.start": "Start", "organiser.finish": "Finish", "organiser.seat": "Seat (up to 10 s)",
    "organiser.cost": "Seating cost", "organiser.links": "Issue the players' tournament links",
    "tournament.play": "Tournament", "tournament.you": "You play as {nick} in {name}.",
    "tournament.waiting": "Waiting for your table: this page takes you to your seat as soon as your round starts.",
    "tournament.moving": "Your table is ready: going to your seat…",
    "tournament.no_token": "Open your tournament link to get here.",
    "board.title": "Judges' board", "board.key": "Judge's or admin's link token, or the admin key",
    "board.use": "Use", "board.round": "Round {round} of {stage}", "board.none": "No round is playing.",
    "board.table": "Table", "board.phase": "Phase", "board.day": "Day", "board.speaks": "Speaks",
    "board.left": "Time left", "board.present": "Joined", "board.absent": "Not joined",
    "board.decision": "Waiting for the host's decision", "board.trouble": "Trouble",
    "board.console": "Console", "board.replace": "Replace", "board.without": "Start without",
    "board.by": "Player (nickname or guest:Name)", "board.over": "Game over",
    "board.elsewhere": "Hosted by {server}", "board.missing": "Not made yet: start the round again",
    "board.paused": "Paused", "board.lobby": "Lobby", "board.started_without": "played without",
    "board.play": "Start every table's game",
  },
  ru: {
    "organiser.title": "Турниры", "organiser.new": "Новый турнир", "organiser.name": "Название",
    "organiser.tables": "Столов", "organiser.games": "Игр на игрока", "organiser.preset": "Правила",
    "organiser.players": "Игроки (ники, guest:Имя для гостя)", "organiser.roster": "Весь состав клуба",
    "organiser.create": "Создать", "organiser.list": "Турниры клуба", "organiser.round": "Тур {round}",
    "organiser.waiting": "не начат", "organiser.playing": "идёт", "organiser.finished": "окончен",
    "organiser.start": "Начать", "organiser.finish": "Закончить", "organiser.seat": "Рассадить (до 10 с)",
    "organiser.cost": "Качество рассадки", "organiser.links": "Выдать игрокам турнирные ссылки",
    "tournament.play": "Турнир", "tournament.you": "Вы играете как {nick} в турнире «{name}».",
    "tournament.waiting": "Ждём ваш стол: страница сама перейдёт на ваше место, как только начнётся ваш тур.",
    "tournament.moving": "Стол готов: переходим на ваше место…",
    "tournament.no_token": "Откройте свою турнирную ссылку.",
    "board.title": "Доска судей", "board.key": "Токен ссылки судьи или админа, или ключ администратора",
    "board.use": "Войти", "board.round": "Тур {round}, этап {stage}", "board.none": "Сейчас не идёт ни один тур.",
    "board.table": "Стол", "board.phase": "Фаза", "board.day": "День", "board.speaks": "Говорит",
    "board.left": "Осталось", "board.present": "Подключены", "board.absent": "Не подключены",
    "board.decision": "Ждёт решения ведущего", "board.trouble": "Проблема",
    "board.console": "Пульт", "board.replace": "Заменить", "board.without": "Начать без него",
    "board.by": "Игрок (ник или guest:Имя)", "board.over": "Игра окончена",
    "board.elsewhere": "Ведёт сервер {server}", "board.missing": "Стол ещё не создан: запустите тур ещё раз",
    "board.paused": "Пауза", "board.lobby": "Лобби", "board.started_without": "играют без",
    "board.play": "Начать игру за всеми столами",
  },
  uk: {
    "organiser.title": "Турніри", "organiser.new": "Новий турнір", "organiser.name": "Назва",
    "organiser.tables": "Столів", "organiser.games": "Ігор на гравця", "organiser.preset": "Правила",
    "organiser.players": "Гравці (ніки, guest:Ім'я для гостя)", "organiser.roster": "Увесь склад клубу",
    "organiser.create": "Створити", "organiser.list": "Турніри клубу", "organiser.round": "Тур {round}",
    "organiser.waiting": "не почато", "organiser.playing": "триває", "organiser.finished": "завершено",
    "organiser.start": "Почати", "organiser.finish": "Завершити", "organiser.seat": "Розсадити (до 10 с)",
    "organiser.cost": "Якість розсадки", "organiser.links": "Видати гравцям турнірні посилання",
    "tournament.play": "Турнір", "tournament.you": "Ви граєте як {nick} у турнірі «{name}».",
    "tournament.waiting": "Чекаємо на ваш стіл: сторінка сама перейде на ваше місце, щойно почнеться ваш тур.",
    "tournament.moving": "Стіл готовий: переходимо на ваше місце…",
    "tournament.no_token": "Відкрийте своє турнірне посилання.",
    "board.title": "Дошка суддів", "board.key": "Токен посилання судді чи адміна, або ключ адміністратора",
    "board.use": "Увійти", "board.round": "Тур {round}, етап {stage}", "board.none": "Зараз не йде жоден тур.",
    "board.table": "Стіл", "board.phase": "Фаза", "board.day": "День", "board.speaks": "Говорить",
    "board.left": "Лишилося", "board.present": "Підключені", "board.absent": "Не підключені",
    "board.decision": "Чекає рішення ведучого", "board.trouble": "Проблема",
    "board.console": "Пульт", "board.replace": "Замінити", "board.without": "Почати без нього",
    "board.by": "Гравець (нік або guest:Ім'я)", "board.over": "Гру закінчено",
    "board.elsewhere": "Веде сервер {server}", "board.missing": "Стіл ще не створено: запустіть тур ще раз",
    "board.paused": "Пауза", "board.lobby": "Лобі", "board.started_without": "грають без",
    "board.play": "Почати гру за всіма столами",
  },
};

export function texts(t) {
  const own = TEXTS[t.lang] ?? TEXTS.en;
  const tt = (key, values = {}) => {
    const text = own[key] ?? TEXTS.en[key];
    if (text == null) return t(key, values);
    return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
  };
  tt.lang = t.lang;
  return tt;
}

/** The page's title and heading in its own texts (club.js's header() knows the club's). */
export function retitle(tt, key) {
  const title = tt(key);
  const heading = document.querySelector("#club-header h1");
  if (heading) heading.textContent = title;
  document.title = document.title.replace(/^[^·]*·/, `${title} ·`);
}

// The tournament pages' own styles, beside the club's (club.css).
if (typeof document !== "undefined") { // a page (not the catalogue's test under node)
  const sheet = document.createElement("link");
  sheet.rel = "stylesheet";
  sheet.href = new URL("tournament.css", import.meta.url).href;
  document.head.append(sheet);
}
