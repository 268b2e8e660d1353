/** The home charts' colours: the page's accent for volume, its ok and bad colours for the rate and failures (tests look for them on the canvas). */
export const CHART_COLORS = { volume: '#1f5eff', rate: '#17784a', failure: '#b42318' } as const;
