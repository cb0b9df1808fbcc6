// The server's bots as the forms offer them (the API's BotName, workers/jobs/bots.py): a search bot's
// level is how long it thinks a move, on one of the server's rq workers.
export const BOTS = [
  ["greedy", "greedy bot"],
  ["strong-0.2", "strong bot, quick (0.2 s a move)"],
  ["strong", "strong bot (searches 1 s a move)"],
  ["strong-5", "strong bot, deep (5 s a move)"],
  ["random", "random bot"],
];
