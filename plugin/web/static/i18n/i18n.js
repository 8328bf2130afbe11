// The UI texts of the player widget and the host console, in the table's language.
// The dictionaries are plain JSON beside this module (ru, uk, en); a missing key falls
// back to English, then to the key itself, so a new text never breaks a page.

const LANGUAGES = ["ru", "uk", "en"];
const cache = new Map();

async function fetchTexts(lang) {
  if (!cache.has(lang)) {
    const url = new URL(`./${lang}.json`, import.meta.url);
    cache.set(lang, fetch(url).then((r) => (r.ok ? r.json() : {})).catch(() => ({})));
  }
  return cache.get(lang);
}

/** A translator for `lang`: t(key, {param: value}) → text. Unknown languages get English. */
export async function loadTexts(lang) {
  const chosen = LANGUAGES.includes(lang) ? lang : "en";
  const [texts, english] = await Promise.all([fetchTexts(chosen), fetchTexts("en")]);
  const t = (key, params = {}) => {
    const template = texts[key] ?? english[key] ?? key;
    return template.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
  };
  t.lang = chosen;
  t.has = (key) => key in texts || key in english;
  return t;
}
