// The markets' price spaces per good, by side of the market boards (4 players, or 2–3), from
// domain/eic/data.py FAR_EAST and EUROPE (PROPOSED values there). tests/browser/test_card_names.py keeps
// this file equal to data.py.
export const MARKETS = {"far_east":{"4":[[4,4,3,3,3,2,2,2,1,1],[5,4,4,3,3,3,2,2,1],[5,5,4,4,3,3,2,2],[6,6,5,5,4,4,3]],"3":[[4,4,3,3,3,2,2,1],[5,4,4,3,3,2,2],[5,5,4,4,3,3],[6,6,5,5,4]]},"europe":{"4":[[7,6,6,5,5,4,4,3,3,2],[8,7,7,6,6,5,5,4,3],[9,8,7,7,6,6,5,4],[10,9,9,8,7,6,5]],"3":[[7,6,6,5,5,4,4,3],[8,7,7,6,6,5,4],[9,8,7,7,6,6],[10,9,9,8,7]]}};
