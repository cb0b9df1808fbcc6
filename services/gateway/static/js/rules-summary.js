// Each game's rules in a few lines, in our own words (not the rulebooks' text), under the rulebook's own
// section names (Manila's and East India Companies' rulebooks are German: the name is given as printed,
// with an English gloss) so that a player with the box can find the full rule. Read by help.js. The words
// are in static/i18n (German: each rulebook's own section names, El Capitán's from its German edition).
import { t } from "./i18n.js";

export const SUMMARIES = {
  manila: {
    title: "Manila",
    players: t("rules.manila.players"),
    aim: t("rules.manila.aim"),
    sections: [
      ["Spielvorbereitung", t("rules.manila.1.gloss"), t("rules.manila.1.text")],
      ["1. Das Amt des Hafenmeisters versteigern", t("rules.manila.2.gloss"), t("rules.manila.2.text")],
      ["2. Das Amt des Hafenmeisters ausüben", t("rules.manila.3.gloss"), t("rules.manila.3.text")],
      ["3. Komplizen einsetzen und Frachtkähne vorwärts würfeln", t("rules.manila.4.gloss"), t("rules.manila.4.text")],
      ["Piraten: Entern und Plündern", t("rules.manila.5.gloss"), t("rules.manila.5.text")],
      ["Lotse", t("rules.manila.6.gloss"), t("rules.manila.6.text")],
      ["4. Einnahmen ausschütten", t("rules.manila.7.gloss"), t("rules.manila.7.text")],
      ["5. Warenwerte ansteigen lassen", t("rules.manila.8.gloss"), t("rules.manila.8.text")],
      ["Spielende und Gewinner", t("rules.manila.9.gloss"), t("rules.manila.9.text")],
    ],
  },
  elcapitan: {
    title: "El Capitán",
    players: t("rules.elcapitan.players"),
    aim: t("rules.elcapitan.aim"),
    sections: [
      [t("rules.elcapitan.1.name"), t("rules.elcapitan.1.gloss"), t("rules.elcapitan.1.text")],
      [t("rules.elcapitan.2.name"), t("rules.elcapitan.2.gloss"), t("rules.elcapitan.2.text")],
      [t("rules.elcapitan.3.name"), t("rules.elcapitan.3.gloss"), t("rules.elcapitan.3.text")],
      [t("rules.elcapitan.4.name"), t("rules.elcapitan.4.gloss"), t("rules.elcapitan.4.text")],
      [t("rules.elcapitan.5.name"), t("rules.elcapitan.5.gloss"), t("rules.elcapitan.5.text")],
      [t("rules.elcapitan.6.name"), t("rules.elcapitan.6.gloss"), t("rules.elcapitan.6.text")],
      [t("rules.elcapitan.7.name"), t("rules.elcapitan.7.gloss"), t("rules.elcapitan.7.text")],
      [t("rules.elcapitan.8.name"), t("rules.elcapitan.8.gloss"), t("rules.elcapitan.8.text")],
      [t("rules.elcapitan.9.name"), t("rules.elcapitan.9.gloss"), t("rules.elcapitan.9.text")],
    ],
  },
  eic: {
    title: "East India Companies",
    players: t("rules.eic.players"),
    aim: t("rules.eic.aim"),
    sections: [
      ["Spielvorbereitung", t("rules.eic.1.gloss"), t("rules.eic.1.text")],
      ["A. Gesandte einsetzen", t("rules.eic.2.gloss"), t("rules.eic.2.text")],
      ["B. Börse", t("rules.eic.3.gloss"), t("rules.eic.3.text")],
      ["C. Navigation", t("rules.eic.4.gloss"), t("rules.eic.4.text")],
      ["D. Verladen", t("rules.eic.5.gloss"), t("rules.eic.5.text")],
      ["E. Verkaufen", t("rules.eic.6.gloss"), t("rules.eic.6.text")],
      ["F. Ende der Epoche", t("rules.eic.7.gloss"), t("rules.eic.7.text")],
      ["Schlusswertung", t("rules.eic.8.gloss"), t("rules.eic.8.text")],
      ["Das 2-Personen-Spiel", t("rules.eic.9.gloss"), t("rules.eic.9.text")],
    ],
  },
};
