// El Capitán's Mediterranean: a hand-simplified coastline (longitude, latitude; no map tiles), where each
// city lies, and where its tile sits on the drawn board — near its place on a wide screen, on the
// board's grid (the seals' steps) on a phone.

// Land, clockwise, as [lon, lat] pairs; the outer rings run off the map's edges.
const EUROPE = [[-20, 49], [-20, 48.4], [-4.5, 48.4], [-1.2, 46.2], [-1.5, 43.4], [-4.5, 43.5], [-8, 43.7], [-9.3, 43],
  [-8.8, 41.9], [-8.6, 41.1], [-9.5, 38.8], [-8.8, 38], [-8.9, 37], [-7.4, 37.2], [-6.3, 36.5], [-5.6, 36], [-4.4, 36.7],
  [-2.1, 36.7], [-0.9, 37.6], [0.2, 38.8], [-0.3, 39.5], [0.5, 40.5], [1.2, 41.1], [2.2, 41.4], [3.2, 42.3], [3.1, 43.1],
  [4.8, 43.4], [5.4, 43.3], [6.2, 43.1], [7.3, 43.7], [8.8, 44.4], [10.2, 43.9], [10.5, 42.9], [11.8, 42.1], [12.6, 41.4],
  [13.8, 41.2], [14.3, 40.8], [15, 40.2], [15.7, 40], [16, 38.9], [15.7, 38], [16.1, 38], [16.6, 38.4], [17.1, 39],
  [17.2, 39.4], [16.5, 39.7], [17, 40.5], [18, 40.2], [18.5, 40.1], [18, 40.7], [16.9, 41.1], [15.9, 41.6], [14.7, 42.1],
  [13.6, 43.5], [12.3, 44.3], [12.3, 45.4], [13.1, 45.7], [13.8, 45], [14.5, 45.3], [15.2, 44.2], [16.4, 43.5],
  [18.1, 42.6], [19.4, 41.9], [19.5, 40.9], [19.4, 40.4], [20, 39.6], [20.7, 38.9], [21.1, 38.3], [21.6, 38.2],
  [21.1, 37.8], [21.7, 36.8], [22.4, 36.4], [22.8, 36.8], [23.2, 36.4], [23, 37.3], [23.7, 37.9], [24, 38.2], [23, 38.9],
  [22.9, 39.4], [22.6, 40.5], [23.8, 40.3], [24.4, 40.9], [26, 40.8], [26.5, 40.4], [27.5, 40.9], [29, 41], [29.1, 41.2],
  [28, 41.9], [27.9, 43.2], [28.6, 44.2], [29.7, 45.2], [30.7, 46.4], [31.8, 46.6], [33, 46], [33.6, 44.5], [35, 44.8],
  [36.6, 45.3], [40, 47.5], [40, 49]];
const ASIA_AFRICA = [[29.2, 41.2], [29.9, 40.7], [29, 40.4], [27.5, 40.3], [26.6, 40.1], [26.2, 39.5], [26.8, 38.9],
  [26.3, 38.3], [27.1, 38.4], [27.2, 37.7], [27.4, 37], [28.3, 36.7], [29.1, 36.6], [30.4, 36.3], [30.7, 36.9], [32, 36.5],
  [33.5, 36.2], [34.6, 36.8], [36, 36.9], [35.8, 36.3], [35.9, 35.2], [35.5, 34], [35, 32.8], [34.5, 31.5], [33.5, 31.1],
  [32.3, 31.3], [31, 31.6], [30.4, 31.5], [29.9, 31.2], [29, 30.8], [27.2, 31.4], [25.2, 31.6], [23.9, 32.1], [22.6, 32.8],
  [21, 32.9], [20, 32], [20.1, 30.9], [19, 30.3], [17.5, 30.8], [15.5, 31.5], [15.2, 32.4], [13.2, 32.9], [11.5, 33.1],
  [10.9, 33.7], [10.1, 33.9], [10.8, 35], [11.1, 35.5], [10.6, 36.4], [11.1, 37], [10.2, 36.8], [9.8, 37.3], [8.6, 36.9],
  [7, 37.1], [5.1, 36.7], [3.1, 36.8], [1, 36.5], [-0.6, 35.7], [-2, 35.1], [-3, 35.3], [-5.3, 35.9], [-5.8, 35.8],
  [-6, 35.5], [-6.8, 34], [-7.6, 33.6], [-8.5, 33.2], [-9.3, 32.5], [-9.8, 31.4], [-9.7, 30.4], [-10.2, 29.4],
  [-11.5, 28.3], [-13, 27.7], [-14.5, 26.2], [-16, 24], [40, 24], [40, 41], [38, 41], [36.3, 41.3], [35, 42.1], [33, 42],
  [31, 41.2]];
const ISLANDS = [
  [[2.4, 39.4], [3.2, 39.3], [3.4, 39.8], [2.8, 39.9]], // Mallorca
  [[1.2, 38.9], [1.6, 38.9], [1.5, 39.1]], // Ibiza
  [[8.6, 41.5], [9.3, 41.4], [9.5, 42.6], [9.4, 43], [8.6, 42.3]], // Corsica
  [[8.4, 39], [9.1, 39.2], [9.7, 40], [9.6, 41], [9.2, 41.2], [8.2, 40.9], [8.5, 40]], // Sardinia
  [[12.4, 38.1], [13.4, 38.2], [15.6, 38.3], [15.1, 37.2], [15.1, 36.7], [14.3, 37], [12.5, 37.6]], // Sicily
  [[23.5, 35.3], [24.3, 35.4], [26.3, 35.3], [25.8, 35], [24.7, 34.9], [23.6, 35.2]], // Crete
  [[32.3, 35], [33.5, 35.4], [34.6, 35.7], [33.9, 35], [33, 34.6]], // Cyprus
  [[27.7, 36.1], [28.2, 36.4], [28.2, 36]], // Rhodes
  [[23.4, 38.2], [24.6, 38.2], [24.2, 38.6]], // Euboea
];
const CANARY = [[-18, 27.7], [-17.8, 28.5], [-16.6, 28.2], [-15.5, 27.8], [-14, 28.3], [-13.6, 29]];

/** Where each city lies (longitude, latitude). */
export const PLACES = {
  marseille: [5.4, 43.3], venezia: [12.3, 45.4], constantinople: [29, 41], valencia: [-0.4, 39.5], napoli: [14.3, 40.9],
  athina: [23.7, 38], tanger: [-5.8, 35.8], tunis: [10.2, 36.8], alexandria: [29.9, 31.2], porto: [-8.6, 41.1],
  lisboa: [-9.1, 38.7], canarias: [-15.5, 28.1],
};

export const CELL = 26;
export const TILE_COLS = 5;
export const TILE_ROWS = 6;

// Tile corners on the wide map (the main board; the Atlantic tiles shift it right), chosen by hand so
// that each tile lies by its city and no two overlap.
const WIDE = {
  marseille: [196, 14], venezia: [384, 8], constantinople: [806, 26], valencia: [124, 200], napoli: [478, 196],
  athina: [652, 226], tanger: [16, 384], tunis: [300, 372], alexandria: [786, 404],
};
const ATLANTIC = { porto: [14, 24], lisboa: [14, 214], canarias: [40, 418] };
const ATLANTIC_SHIFT = 176;

/** The drawn board's geometry for the cities in play: size, projection, tile corners, bank and sea box. */
export function layout(names, narrow) {
  const atlantic = names.some((n) => n in ATLANTIC);
  const s = CELL; // the svg scales: on a phone the narrower board keeps a site about 23 px wide
  const tw = TILE_COLS * s;
  const th = TILE_ROWS * s + 18; // the name above the track
  if (narrow) {
    const gap = 8;
    const width = 3 * tw + 2 * gap + 20;
    const rowH = th + 12;
    const rows = atlantic ? 4 : 3;
    const tiles = {};
    const at = (name, row, col) => (tiles[name] = [10 + col * (tw + gap), 8 + row * rowH]);
    ["marseille", "venezia", "constantinople", "valencia", "napoli", "athina", "tanger", "tunis", "alexandria"].forEach((n, i) => at(n, Math.floor(i / 3), i % 3));
    ["porto", "lisboa", "canarias"].forEach((n, i) => at(n, 3, i));
    const mapH = 8 + rows * rowH;
    const boxes = { bank: [10, mapH, 190, 92], sea: [width - 200, mapH, 190, 92] };
    return { narrow, s, tw, th, width, height: mapH + 100, mapHeight: mapH, tiles, boxes, project: projection([-10, 37], [47, 30], width, 8 + 3 * rowH) };
  }
  const shift = atlantic ? ATLANTIC_SHIFT : 0;
  const width = 1000 + shift;
  const tiles = {};
  for (const [n, [x, y]] of Object.entries(WIDE)) tiles[n] = [x + shift, y];
  for (const [n, [x, y]] of Object.entries(ATLANTIC)) tiles[n] = [x, y];
  const height = atlantic ? 640 : 590;
  const boxes = { bank: [width - 118, 250, 108, 118], sea: [shift + 470, 430, 170, 70] };
  const west = atlantic ? -9 - shift / 21.3 : -9;
  return { narrow, s, tw, th, width, height, mapHeight: height, tiles, boxes, project: projection([west, 37.5], [47.5, atlantic ? 27 : 29.6], width, height) };
}

function projection([west, east], [north, south], width, height) {
  const kx = width / (east - west);
  const ky = height / (north - south);
  return ([lon, lat]) => [(lon - west) * kx, (north - lat) * ky];
}

/** The land as SVG path data in a layout's projection. */
export function coastPath(project) {
  const ring = (points) => "M" + points.map((p) => project(p).map((v) => v.toFixed(1)).join(",")).join("L") + "Z";
  return [EUROPE, ASIA_AFRICA, ...ISLANDS].map(ring).join("");
}

/** The Canary Islands as small dots (too small for outlines at this scale). */
export function canaryDots(project) {
  return CANARY.map(project);
}
