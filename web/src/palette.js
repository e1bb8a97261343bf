// Okabe and Ito's palette ("Color Universal Design", 2008): eight colours told apart with each
// kind of colour blindness; black left out so that every colour reads on light and dark pages.
// A module of its own so that the page modules charts.js imports can use it as they load.
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"];
