/** The plots' colours: computed lines, measured points, reference guides, the ideal to compare with. */
export const COLOURS = { formula: '#1f6feb', measured: '#d1242f', guide: '#6e7781', ideal: '#2da44e' };
