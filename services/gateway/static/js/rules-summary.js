// Each game's rules in a few lines, in our own words (not the rulebooks' text), under the rulebook's own
// section names (Manila's and East India Companies' rulebooks are German: the name is given as printed,
// with an English gloss) so that a player with the box can find the full rule. Read by help.js.

export const SUMMARIES = {
  manila: {
    title: "Manila",
    players: "3 to 5 players",
    aim: "Hold the most money at the end: bet on which barges reach the harbour, and own shares of the goods whose price climbs.",
    sections: [
      ["Spielvorbereitung", "Set-up", "Everyone starts with 30 pesos and two shares; the four price markers start at 0 on the black market. A share may be pledged to the bank for a loan of 12 and redeemed for 15."],
      ["1. Das Amt des Hafenmeisters versteigern", "Auctioning the harbour master", "Players bid in turn for the harbour master's office; the winner pays the bank and may buy one share at its current price."],
      ["2. Das Amt des Hafenmeisters ausüben", "Acting as harbour master", "The harbour master picks three of the four goods to ship this voyage and sets their barges on their start fields (nine steps in all, at most five for one)."],
      ["3. Komplizen einsetzen und Frachtkähne vorwärts würfeln", "Placing accomplices and rolling the barges on", "Placing rounds and dice rounds alternate: each player puts one accomplice on a barge seat, a harbour or shipyard place, the pirates, the pilots or the insurance; then three dice move the barges. With three players two placing rounds come before the first roll."],
      ["Piraten: Entern und Plündern", "Pirates: boarding and plundering", "A barge that stops on field 13 after the second roll may be boarded by the pirates; one there after the third roll is plundered, its cargo going to the pirates."],
      ["Lotse", "Pilots", "Just before the third roll the small pilot may move a barge one field and the large pilot up to two, forwards or back."],
      ["4. Einnahmen ausschütten", "Paying out", "Crews of barges in the harbour share their cargo's value; harbour and shipyard places pay if a barge arrives there; the insurance pays for barges in the shipyard."],
      ["5. Warenwerte ansteigen lassen", "Raising the prices", "Every good that reached the harbour climbs one step on the black market (0, 5, 10, 20, 30)."],
      ["Spielende und Gewinner", "End of the game", "The game ends after the voyage in which a price reaches 30. Each unpledged share is worth its good's price, each loan not paid back costs 15, and the richest player wins."],
    ],
  },
  elcapitan: {
    title: "El Capitán",
    players: "2 to 5 players",
    aim: "Build warehouses and fortresses in the Mediterranean's cities and earn the most florins at the paydays.",
    sections: [
      ["PREPARATION", "Set-up", "Each player takes money and a ship; the sailing cards are shuffled and the first ones laid out for sale."],
      ["SAILING CARDS", "Sailing cards", "Destination cards take a ship to one city or a few steps by sea; interconnection cards sail once between two cities. Each costs what it says."],
      ["THE ACTIONS IN DETAIL", "A turn", "Buy sailing cards and sail, then build a warehouse (or re-open a shut one), build a fortress, or take a loan."],
      ["Warehouse shut down", "Shut-down warehouses", "A city's warehouse track fills up: building past a rival's warehouse may shut it down until its owner re-opens it."],
      ["Take a loan", "Loans", "The bank lends 10 or 16 florins; loans are paid back or extended after each payday."],
      ["PAYDAY", "Paydays", "Three paydays: proliferation pays for the number of cities you build in, a bonus for the most cities, majority pays each city's leaders, fortresses pay their owners."],
      ["AFTER A PAYDAY", "After a payday", "Loans are settled, money is checked, and the next phase's starting player is set."],
      ["END OF THE GAME AND WINNER", "End of the game", "After the third payday the player with the most florins wins."],
      ["EL CAPITÁN – EXPANSION RULES", "Expansions", "Porto, Lisboa and Islas Canarias lie off the main board and have their own cards and payouts (see the options below)."],
    ],
  },
  eic: {
    title: "East India Companies",
    players: "2 to 4 players",
    aim: "Run your trading company through five epochs: ship goods between Europe and the Far East, and own the shares worth most at the end.",
    sections: [
      ["Spielvorbereitung", "Set-up", "Markets, stock exchange and initiative are laid out; each player gets a company, its port extensions and starting shares."],
      ["A. Gesandte einsetzen", "A. Placing envoys", "In initiative order players send envoys to the personalities, each of which grants an action: a ship, a trading post, a port extension, influence over a market, and more."],
      ["B. Börse", "B. Stock exchange", "In turn each player buys one share of any company at its current value, or passes; the phase ends when all pass in a row."],
      ["C. Navigation", "C. Navigation", "Ships sail to the sea zones of the Far East; trading posts there make goods cheaper."],
      ["D. Verladen", "D. Loading", "Ships load goods bought at the Far East market; more cubes on a market mean lower prices."],
      ["E. Verkaufen", "E. Selling", "Goods brought home are sold at the European market; income and dividends follow."],
      ["F. Ende der Epoche", "F. End of the epoch", "Dividends are paid by share value, ships age, and the next epoch's market cards come out."],
      ["Schlusswertung", "Final scoring", "After epoch 5: shares at their value plus the treasury; ties go to the higher own share value, then more money, then initiative."],
      ["Das 2-Personen-Spiel", "Two players", "A neutral company plays along by its target cards."],
    ],
  },
};
