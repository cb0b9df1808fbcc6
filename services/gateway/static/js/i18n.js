// The web client's words in English and German (issue 44), kept as data: static/i18n/en.json and de.json,
// flat keys with `{name}` placeholders. The language is the reader's choice (the header's switch, kept in
// localStorage), else the first of the browser's languages that the client speaks, else English.
// Every page module imports this one: its top-level await loads the texts before any page draws a word,
// and it translates the page's own HTML (`data-i18n` attributes) and adds the switch to the header.

const CHOICE = "hm-lang";
/** Each language the client speaks, named in itself (as the switch shows it). */
export const LANGUAGES = { en: "English", de: "Deutsch" };

/** The first of the browser's languages the client speaks ("de-AT" is German), else English. */
function browserLanguage() {
  for (const tag of navigator.languages || [navigator.language || ""]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (Object.hasOwn(LANGUAGES, base)) return base;
  }
  return "en";
}

function keptChoice() {
  try {
    return localStorage.getItem(CHOICE);
  } catch (e) {
    return null; // storage refused (a private window's policy): the browser's language decides
  }
}

/** The language pages are shown in: the reader's kept choice, else the browser's. */
export function chosenLanguage() {
  const kept = keptChoice();
  return kept && Object.hasOwn(LANGUAGES, kept) ? kept : browserLanguage();
}

async function load(language) {
  try {
    const response = await fetch(`/static/i18n/${language}.json`);
    return response.ok ? await response.json() : {};
  } catch (e) {
    return {}; // unreachable: the keys' English fallback below still names every text
  }
}

export const lang = chosenLanguage();
// English underneath: a key the German file lacks is shown in English, never as its bare key.
const [english, own] = await Promise.all([load("en"), lang === "en" ? Promise.resolve({}) : load(lang)]);
const texts = { ...english, ...own };

/** The text of `key` with its `{placeholders}` filled from `params` (the key itself when unknown). */
export function t(key, params) {
  const text = Object.hasOwn(texts, key) ? texts[key] : key;
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** Like `t`, as a list of strings and nodes for `el()`: a placeholder may be a node (a player's coloured
 * name), which a string cannot hold. */
export function tNodes(key, params) {
  const text = Object.hasOwn(texts, key) ? texts[key] : key;
  return text.split(/(\{\w+\})/).filter((part) => part !== "").map((part) => {
    const name = /^\{(\w+)\}$/.exec(part);
    return name && params && Object.hasOwn(params, name[1]) ? params[name[1]] : part;
  });
}

const ATTRIBUTES = ["title", "aria-label", "placeholder"];

/** The page's own HTML: `data-i18n="key"` sets an element's text, `data-i18n-title` (and `-aria-label`,
 * `-placeholder`) the attribute. */
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const attribute of ATTRIBUTES) {
    for (const node of root.querySelectorAll(`[data-i18n-${attribute}]`)) node.setAttribute(attribute, t(node.getAttribute(`data-i18n-${attribute}`)));
  }
}

/** The header's switch: one button naming the other language in its own words; the page is read again. */
function languageSwitch() {
  const other = lang === "en" ? "de" : "en";
  return Object.assign(document.createElement("button"), {
    type: "button", id: "language", className: "small-button lang-switch", lang: other, textContent: LANGUAGES[other],
    title: t("lang.switch_title"),
    onclick: () => {
      try {
        localStorage.setItem(CHOICE, other);
      } catch (e) {
        return; // nowhere to keep the choice: a reload would show the same language
      }
      location.reload();
    },
  });
}

document.documentElement.lang = lang;
translatePage();
const header = document.querySelector("header");
if (header && !document.getElementById("language")) header.append(languageSwitch());
document.documentElement.classList.remove("i18n-wait");
