// How a release's changesets become each package's CHANGELOG.md (the `changelog` of .changeset/config.json). A
// package's own changesets are written whole, as changesets' default does. Its bloomkit dependencies move with it
// (one fixed version), and where the default writes a bare "Updated dependencies" line for each changeset behind
// them, this says what changed for this package's users through them: the first sentence of each such changeset
// that does not name the package itself, with the dependencies it changed.

/** Ids of the changesets written as the current entry's own lines (see getDependencyReleaseLine). */
let own = new Set();

/** The summary's first sentence, on one line. */
function firstSentence(summary) {
  const text = summary.replace(/\s+/g, ' ').trim();
  const end = text.search(/[.:;](\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1).replace(/[:;]$/, '.');
}

/** One of the package's own changesets: its summary, indented as a list entry. */
async function getReleaseLine(changeset) {
  own.add(changeset.id);
  const [first, ...rest] = changeset.summary.split('\n').map((line) => line.trimEnd());
  return [`- ${first}`, ...rest.map((line) => (line === '' ? '' : `  ${line}`))].join('\n');
}

/**
 * What the package's users get through its dependencies' changesets. Changesets computes one entry at a time and
 * calls this right after the entry's getReleaseLine calls, with nothing awaited between them, so `own` holds that
 * entry's changesets here (those are not repeated).
 */
async function getDependencyReleaseLine(changesets, dependenciesUpdated) {
  const mine = own;
  own = new Set();
  if (dependenciesUpdated.length === 0) return '';
  const names = new Set(dependenciesUpdated.map((dependency) => dependency.name));
  const lines = [];
  for (const changeset of changesets) {
    if (mine.has(changeset.id)) continue;
    const through = changeset.releases.map((release) => release.name).filter((name) => names.has(name));
    if (through.length === 0) continue;
    lines.push(
      `- Through ${through.map((name) => `\`${name}\``).join(', ')}: ${firstSentence(changeset.summary)}`,
    );
  }
  return lines.join('\n');
}

module.exports = { getReleaseLine, getDependencyReleaseLine, firstSentence };
