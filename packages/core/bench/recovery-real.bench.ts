// The real-world corpus (packages/core/src/recovery/__fixtures__/real-world/*.json): model outputs quoted verbatim
// in public issues where a tool call leaked into the text or broke a parser, and negatives that only show, quote
// or reject a call. Scored on the current code and on the code the work started from, in one run.
// Run: npm run bench -- recovery-real
import {
  type CorpusScore,
  corpusChunkSizes,
  currentRecovery,
  loadRealWorldCorpus,
  scoreCorpus,
} from '../src/recovery/__fixtures__/real-world-corpus.ts';
import { loadRecoverySnapshot } from './recovery-snapshot.ts';

const cases = loadRealWorldCorpus();
const baseline = await loadRecoverySnapshot();
const current = scoreCorpus(cases, currentRecovery);
const before = scoreCorpus(cases, baseline.recovery);

const percent = (part: number, whole: number) =>
  whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)} %`;
const row = (label: string, score: CorpusScore) =>
  `| ${label} | ${score.right}/${score.expected} (${percent(score.right, score.expected)}) | ${score.clean
    .map((clean) => `${clean}/${score.cases} (${percent(clean, score.cases)})`)
    .join(' | ')} | ${score.falseCalls} | ${score.extraCalls} |`;

console.log('## Real-world recovery corpus (packages/core/bench/recovery-real.bench.ts)\n');
console.log(
  `${cases.length} model outputs quoted in public issues and parser fixtures, ${current.negatives} of them negatives (no call). Calls: extracted at their place with the right name and arguments. Clean display: what the user ends up seeing (the answer filter streaming the text in chunks of that size, then the turn's retraction of recovered calls) is the expected prose, whitespace aside. False calls: calls extracted from negatives.\n`,
);
console.log(
  `| code | calls right | ${corpusChunkSizes.map((size) => `clean at ${size}`).join(' | ')} | false calls | extra calls |`,
);
console.log(`|---|---|${corpusChunkSizes.map(() => '---|').join('')}---|---|`);
console.log(row(`before (${baseline.commit})`, before));
console.log(row('now', current));

console.log('\nBy family (now; before in brackets):\n');
console.log('| family | cases | calls right | clean at 1 / 7 / 64 | false calls |');
console.log('|---|---|---|---|---|');
const families = [...new Set(cases.map((entry) => entry.family))].sort();
for (const family of families) {
  const pick = (score: CorpusScore) => {
    const members = score.scores.filter((entry) => entry.family === family);
    return {
      cases: members.length,
      expected: members.reduce((total, entry) => total + entry.expected, 0),
      right: members.reduce((total, entry) => total + entry.right, 0),
      clean: corpusChunkSizes.map((_, size) => members.filter((entry) => entry.clean[size]).length),
      falseCalls: members.reduce(
        (total, entry) => total + (entry.expected === 0 ? entry.extracted.length : 0),
        0,
      ),
    };
  };
  const now = pick(current);
  const then = pick(before);
  console.log(
    `| ${family} | ${now.cases} | ${now.right}/${now.expected} (${then.right}) | ${now.clean.join(' / ')} (${then.clean.join(' / ')}) | ${now.falseCalls} (${then.falseCalls}) |`,
  );
}

const failing = current.scores.filter(
  (entry) => entry.right < entry.expected || entry.extra > 0 || entry.clean.some((clean) => !clean),
);
if (failing.length > 0) {
  console.log('\nCases not yet right (now):\n');
  for (const entry of failing) {
    console.log(
      `- \`${entry.id}\`: calls ${entry.right}/${entry.expected}, extra ${entry.extra}, clean ${entry.clean
        .map((clean, size) => `${corpusChunkSizes[size]}:${clean ? 'yes' : 'no'}`)
        .join(' ')}`,
    );
  }
}
console.log('');
