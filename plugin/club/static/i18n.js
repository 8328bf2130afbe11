// The club's pages in the club's language (issue 33): en, ru, uk (see `language`).

const TEXTS = {
  en: {
    "club.title": "Club", "standings.title": "Standings", "season": "Season",
    "print": "Print", "csv": "CSV", "games": "Games", "wins": "Wins", "main": "Wins (pts)",
    "extra": "Extra", "best_move": "Best move", "penalty": "Penalty", "ci": "Ci",
    "total": "Total", "special_role_wins": "Sheriff/don wins",
    "first_night_deaths": "Killed first", "rating": "Rating", "rank": "#", "nick": "Player",
    "no_games": "No game has been signed yet.", "player.title": "Player",
    "per_role": "Per role", "role": "Role", "first_killed": "Killed first",
    "best_move_accuracy": "Best-move accuracy", "fouls": "Fouls", "points": "Points",
    "rating_chart": "Rating over time", "game": "Game", "date": "Date", "seat": "Seat",
    "won": "Won", "lost": "Lost", "all_seasons": "All seasons",
    "civilian": "Civilian", "sheriff": "Sheriff", "mafia": "Mafia", "don": "Don",
    "admin.title": "Club admin", "admin.key": "Admin key", "admin.use": "Use",
    "roster": "Roster", "add": "Add", "name": "Name", "city": "City", "club": "Club",
    "link": "Link", "revoke": "Revoke", "grant": "Make judge", "grant_admin": "Make admin",
    "ungrant": "Take back", "roles": "Rights", "kind": "Kind", "new_link": "New link",
    "me.title": "Me", "me.remembered": "This browser is remembered: open any table's invite link and you join as {nick}.",
    "me.judge": "You are a club judge: finished games waiting for your signature:",
    "me.admin": "You are a club admin:", "me.none": "none", "me.my_page": "My page",
    "me.admin_page": "Club admin page", "me.no_token": "Open your personal link to get here.",
    "sheet.title": "Judge's sheet", "sheet.sign": "Sign", "sheet.signed": "Signed",
    "sheet.correct": "Correct", "sheet.reason": "Reason", "sheet.comment": "Comment",
    "sheet.extra": "Extra points", "sheet.add_bonus": "+ extra", "sheet.remove_auto": "No auto-bonus",
    "sheet.best_move": "Best move (black seats named)", "sheet.team_dq": "Team disqualified",
    "sheet.history": "History", "sheet.by": "by", "sheet.none": "none",
    "sheet.result": "Result", "winner.city": "The city won", "winner.mafia": "The mafia won",
    "winner.draw": "Draw", "out": "Out", "standings_link": "Standings",
    "error": "Refused: {message}", "saved": "Saved", "language": "Language", "save": "Save",
    "tournament.title": "Tournament standings", "overall": "Overall", "results": "Final results",
    "place": "#", "stage_reached": "Stage reached", "json": "JSON",
    "extras_hidden": "The judges' extra points of this stage are hidden until the organiser reveals them.",
    "signed_games": "{games} of {tables} games signed", "tie_breaks": "Ties broken by: {list}",
    "extra_penalty_best_move": "Extra + penalty + best move", "no_tournament_games": "No game of this tournament has been signed yet.",
    "judges_view": "Judges' view: every extra point, hidden ones too.", "tournaments_link": "Tournaments", "unscored": "Game {game} is not scored: {reason}",
    "club_extras_hidden": "The judges' extra points of {count} tournament games are left out here until the organiser reveals them.", "extras_hidden_game": "judges' extra points hidden",
    "me.tables": "Open tables you may host:", "me.host": "Host", "me.new_table": "New table",
  },
  ru: {
    "club.title": "Клуб", "standings.title": "Турнирная таблица", "season": "Сезон",
    "print": "Печать", "csv": "CSV", "games": "Игры", "wins": "Победы", "main": "Победы (баллы)",
    "extra": "Доп.", "best_move": "Лучший ход", "penalty": "Штраф", "ci": "Ci",
    "total": "Итого", "special_role_wins": "Победы шерифом/доном",
    "first_night_deaths": "Убит первым", "rating": "Рейтинг", "rank": "№", "nick": "Игрок",
    "no_games": "Ещё ни одна игра не подписана.", "player.title": "Игрок",
    "per_role": "По ролям", "role": "Роль", "first_killed": "Убит первым",
    "best_move_accuracy": "Точность лучшего хода", "fouls": "Фолы", "points": "Баллы",
    "rating_chart": "Рейтинг по играм", "game": "Игра", "date": "Дата", "seat": "Место",
    "won": "Победа", "lost": "Поражение", "all_seasons": "Все сезоны",
    "civilian": "Мирный", "sheriff": "Шериф", "mafia": "Мафия", "don": "Дон",
    "admin.title": "Администрирование клуба", "admin.key": "Ключ администратора", "admin.use": "Войти",
    "roster": "Состав", "add": "Добавить", "name": "Имя", "city": "Город", "club": "Клуб",
    "link": "Ссылка", "revoke": "Отозвать", "grant": "Сделать судьёй", "grant_admin": "Сделать админом",
    "ungrant": "Забрать", "roles": "Права", "kind": "Вид", "new_link": "Новая ссылка",
    "me.title": "Я", "me.remembered": "Этот браузер запомнен: откройте ссылку-приглашение любого стола, и вы войдёте как {nick}.",
    "me.judge": "Вы судья клуба: законченные игры ждут вашей подписи:",
    "me.admin": "Вы администратор клуба:", "me.none": "нет", "me.my_page": "Моя страница",
    "me.admin_page": "Администрирование клуба", "me.no_token": "Откройте свою личную ссылку.",
    "sheet.title": "Лист судьи", "sheet.sign": "Подписать", "sheet.signed": "Подписано",
    "sheet.correct": "Исправить", "sheet.reason": "Причина", "sheet.comment": "Комментарий",
    "sheet.extra": "Доп. баллы", "sheet.add_bonus": "+ доп.", "sheet.remove_auto": "Без автобонуса",
    "sheet.best_move": "Лучший ход (названо чёрных)", "sheet.team_dq": "Дисквалификация команды",
    "sheet.history": "История", "sheet.by": "кто", "sheet.none": "нет",
    "sheet.result": "Результат", "winner.city": "Победа города", "winner.mafia": "Победа мафии",
    "winner.draw": "Ничья", "out": "Выбыл", "standings_link": "Турнирная таблица",
    "error": "Отказ: {message}", "saved": "Сохранено", "language": "Язык", "save": "Сохранить",
    "tournament.title": "Турнирная таблица турнира", "overall": "Общий зачёт", "results": "Итоговые места",
    "place": "#", "stage_reached": "Этап", "json": "JSON",
    "extras_hidden": "Дополнительные баллы судей этого этапа скрыты, пока организатор их не откроет.",
    "signed_games": "Подписано игр: {games} из {tables}", "tie_breaks": "При равенстве: {list}",
    "extra_penalty_best_move": "Доп. + штрафы + лучший ход", "no_tournament_games": "Ни одна игра турнира ещё не подписана.",
    "judges_view": "Вид для судей: все дополнительные баллы, и скрытые тоже.", "tournaments_link": "Турниры", "unscored": "Игра {game} не засчитана: {reason}",
    "club_extras_hidden": "Дополнительные баллы судей в {count} играх турнира здесь не учтены, пока организатор их не откроет.", "extras_hidden_game": "доп. баллы судей скрыты",
    "me.tables": "Открытые столы, которые вы можете вести:", "me.host": "Вести", "me.new_table": "Новый стол",
  },
  uk: {
    "club.title": "Клуб", "standings.title": "Турнірна таблиця", "season": "Сезон",
    "print": "Друк", "csv": "CSV", "games": "Ігри", "wins": "Перемоги", "main": "Перемоги (бали)",
    "extra": "Дод.", "best_move": "Кращий хід", "penalty": "Штраф", "ci": "Ci",
    "total": "Разом", "special_role_wins": "Перемоги шерифом/доном",
    "first_night_deaths": "Убитий першим", "rating": "Рейтинг", "rank": "№", "nick": "Гравець",
    "no_games": "Ще жодну гру не підписано.", "player.title": "Гравець",
    "per_role": "За ролями", "role": "Роль", "first_killed": "Убитий першим",
    "best_move_accuracy": "Точність кращого ходу", "fouls": "Фоли", "points": "Бали",
    "rating_chart": "Рейтинг за іграми", "game": "Гра", "date": "Дата", "seat": "Місце",
    "won": "Перемога", "lost": "Поразка", "all_seasons": "Усі сезони",
    "civilian": "Мирний", "sheriff": "Шериф", "mafia": "Мафія", "don": "Дон",
    "admin.title": "Адміністрування клубу", "admin.key": "Ключ адміністратора", "admin.use": "Увійти",
    "roster": "Склад", "add": "Додати", "name": "Ім'я", "city": "Місто", "club": "Клуб",
    "link": "Посилання", "revoke": "Відкликати", "grant": "Зробити суддею", "grant_admin": "Зробити адміном",
    "ungrant": "Забрати", "roles": "Права", "kind": "Вид", "new_link": "Нове посилання",
    "me.title": "Я", "me.remembered": "Цей браузер запам'ятовано: відкрийте посилання-запрошення будь-якого столу, і ви увійдете як {nick}.",
    "me.judge": "Ви суддя клубу: завершені ігри чекають на ваш підпис:",
    "me.admin": "Ви адміністратор клубу:", "me.none": "немає", "me.my_page": "Моя сторінка",
    "me.admin_page": "Адміністрування клубу", "me.no_token": "Відкрийте своє особисте посилання.",
    "sheet.title": "Лист судді", "sheet.sign": "Підписати", "sheet.signed": "Підписано",
    "sheet.correct": "Виправити", "sheet.reason": "Причина", "sheet.comment": "Коментар",
    "sheet.extra": "Дод. бали", "sheet.add_bonus": "+ дод.", "sheet.remove_auto": "Без автобонусу",
    "sheet.best_move": "Кращий хід (названо чорних)", "sheet.team_dq": "Дискваліфікація команди",
    "sheet.history": "Історія", "sheet.by": "хто", "sheet.none": "немає",
    "sheet.result": "Результат", "winner.city": "Перемога міста", "winner.mafia": "Перемога мафії",
    "winner.draw": "Нічия", "out": "Вибув", "standings_link": "Турнірна таблиця",
    "error": "Відмова: {message}", "saved": "Збережено", "language": "Мова", "save": "Зберегти",
    "tournament.title": "Турнірна таблиця турніру", "overall": "Загальний залік", "results": "Підсумкові місця",
    "place": "#", "stage_reached": "Етап", "json": "JSON",
    "extras_hidden": "Додаткові бали суддів цього етапу приховані, доки організатор їх не відкриє.",
    "signed_games": "Підписано ігор: {games} з {tables}", "tie_breaks": "За рівності: {list}",
    "extra_penalty_best_move": "Дод. + штрафи + найкращий хід", "no_tournament_games": "Жодну гру турніру ще не підписано.",
    "judges_view": "Вигляд для суддів: усі додаткові бали, і приховані теж.", "tournaments_link": "Турніри", "unscored": "Гру {game} не зараховано: {reason}",
    "club_extras_hidden": "Додаткові бали суддів у {count} іграх турніру тут не враховані, доки організатор їх не відкриє.", "extras_hidden_game": "дод. бали суддів приховані",
    "me.tables": "Відкриті столи, які ви можете вести:", "me.host": "Вести", "me.new_table": "Новий стіл",
  },
};

export const LANGUAGES = Object.keys(TEXTS);

/** ?lang=, else the language this browser picked before, else the club's, else the
 * browser's own, else English. */
export function language(clubLanguage = "") {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && TEXTS[asked]) {
    try { localStorage.setItem("autohost.lang", asked); } catch (_) { /* private mode */ }
    return asked;
  }
  let kept = null;
  try { kept = localStorage.getItem("autohost.lang"); } catch (_) { /* private mode */ }
  if (kept && TEXTS[kept]) return kept;
  if (TEXTS[clubLanguage]) return clubLanguage;
  const own = (navigator.language ?? "en").slice(0, 2);
  return TEXTS[own] ? own : "en";
}

/** t(key, {name: value}): the text in the page's language (the key itself if missing). */
export function translator(lang) {
  const table = TEXTS[lang] ?? TEXTS.en;
  const t = (key, values = {}) =>
    (table[key] ?? TEXTS.en[key] ?? key).replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
  t.lang = lang;
  return t;
}
