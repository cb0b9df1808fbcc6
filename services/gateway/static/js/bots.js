// The server's bots as the forms offer them (the API's BotName, workers/jobs/bots.py): a search bot's
// level is how long it thinks a move, on one of the server's rq workers.
import { t } from "./i18n.js";

export const BOTS = [
  ["greedy", t("bot.greedy")],
  ["strong-0.2", t("bot.strong_quick")],
  ["strong", t("bot.strong")],
  ["strong-5", t("bot.strong_deep")],
  ["random", t("bot.random")],
];

// A seat's bot in a tag or a list ("greedy bot"), by the kind the API names; a kind this client does not
// know is shown as the API names it.
const SHORT = {
  greedy: t("bot.short.greedy"), random: t("bot.short.random"), strong: t("bot.short.strong"),
  "strong-0.2": t("bot.short.strong_quick"), "strong-5": t("bot.short.strong_deep"),
};
export const botWords = (kind) => SHORT[kind] || t("players.bot", { kind });
