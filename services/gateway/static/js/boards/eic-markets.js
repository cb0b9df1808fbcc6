// The markets' price spaces per good, by side of the market boards (4 players, or 2–3), from
// domain/eic/data.py FAR_EAST and EUROPE (PROPOSED values there), and the stock exchange track with its
// dividends per share (STOCK_VALUES, DIVIDENDS). tests/unit/contract/test_web_card_names.py keeps
// this file equal to data.py.
export const MARKETS = {"far_east":{"4":[[4,4,3,3,3,2,2,2,1,1],[5,4,4,3,3,3,2,2,1],[5,5,4,4,3,3,2,2],[6,6,5,5,4,4,3]],"3":[[4,4,3,3,3,2,2,1],[5,4,4,3,3,2,2],[5,5,4,4,3,3],[6,6,5,5,4]]},"europe":{"4":[[7,6,6,5,5,4,4,3,3,2],[8,7,7,6,6,5,5,4,3],[9,8,7,7,6,6,5,4],[10,9,9,8,7,6,5]],"3":[[7,6,6,5,5,4,4,3],[8,7,7,6,6,5,4],[9,8,7,7,6,6],[10,9,9,8,7]]}};
export const STOCK = {"values":[4,5,6,7,8,9,10,11,12,13,14,15,16,18,20,22,24,26,28,30,32,35,38,41,44,48,52,56,60,65],"dividends":[0,0,1,1,1,1,1,2,2,2,2,2,3,3,3,3,4,4,4,5,5,5,6,6,7,7,8,8,9,10]};
