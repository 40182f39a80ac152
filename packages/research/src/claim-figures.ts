/**
 * The facts of a sentence that sharing words cannot vouch for: its figures (numbers with their scale, currency,
 * percent sign or unit), its month names and its negations. "700 hours" and "7 hours" share every word; so do
 * "is effective" and "is not effective". The citation check lets a sentence pass on shared words only when these
 * agree with its source as well; otherwise the judge reads it.
 */

/** One figure: its value (scale applied) and what qualifies it (`%`, a currency code, a unit word, or nothing). */
interface Figure {
  readonly value: number;
  readonly qualifier: string;
}

const scales: Readonly<Record<string, number>> = {
  thousand: 1e3,
  million: 1e6,
  billion: 1e9,
  trillion: 1e12,
};

// Short scales are read only after a currency ("$5m", "€2bn"): after a bare number, "m" is a metre.
const currencyScales: Readonly<Record<string, number>> = {
  k: 1e3,
  m: 1e6,
  mn: 1e6,
  bn: 1e9,
  b: 1e9,
  tn: 1e12,
};

// Units compared between claim and source; any other word after a number ("in 2019 revenue") is not a unit.
const units = new Set(
  'second minute hour day week month year decade century ms sec min hr h km m cm mm mile kg g mg tonne ton lb litre liter ml gallon kb mb gb tb byte bit kw mw gw kwh mwh gwh twh watt volt degree people person user employee customer patient case death vote seat'.split(
    ' ',
  ),
);

const currencies: Readonly<Record<string, string>> = {
  $: 'USD',
  us$: 'USD',
  usd: 'USD',
  dollar: 'USD',
  '€': 'EUR',
  eur: 'EUR',
  euro: 'EUR',
  '£': 'GBP',
  gbp: 'GBP',
  pound: 'GBP',
  '¥': 'JPY',
  jpy: 'JPY',
  yen: 'JPY',
};

const percentWords = new Set(['%', 'percent', 'per cent', 'pct']);
const ordinalSuffixes = new Set(['st', 'nd', 'rd', 'th']);

const months = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

const negations = /\b(?:not|no|never|none|neither|nor|without|cannot|nobody|nothing|nowhere)\b|n't\b/giu;

// A number (thousands separators allowed), with what may stand before it (a currency) and after it (a scale, a
// currency, a percent sign or a unit word).
const figurePattern =
  /(us\$|\$|€|£|¥|\b(?:usd|eur|gbp|jpy)\s?)?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?-?\s?(per cent|percent|%|[\p{L}]+|[$€£¥]))?(?:\s(?:of\s)?([\p{L}]+))?/giu;

function singular(word: string): string {
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

/** The figures of a text, normalised so that "$1.5 million", "1,500,000 dollars" and "USD 1.5m" are one figure. */
export function figuresOf(text: string): Figure[] {
  const figures: Figure[] = [];
  for (const match of text.matchAll(figurePattern)) {
    const [, before, digits = '', firstRaw, secondRaw] = match;
    let value = Number(digits.replaceAll(',', ''));
    if (!Number.isFinite(value)) continue;
    let currency = before === undefined ? undefined : currencies[before.trim().toLowerCase()];
    let qualifier = '';
    const words = [firstRaw, secondRaw].map((word) => word?.toLowerCase());
    for (const [position, word] of words.entries()) {
      if (word === undefined) break;
      if (position === 0 && ordinalSuffixes.has(word)) break;
      const scale =
        position === 0 ? (scales[word] ?? (currency ? currencyScales[word] : undefined)) : undefined;
      if (scale !== undefined) {
        value *= scale;
        continue;
      }
      if (percentWords.has(word)) {
        qualifier = '%';
        break;
      }
      const named = currencies[singular(word)];
      if (named !== undefined) {
        currency = named;
        break;
      }
      // A unit right after the number ("700 hours", "a 7-day trial"), or after its scale ("2 million users").
      if (units.has(singular(word))) qualifier = singular(word);
      break;
    }
    figures.push({ value: Math.round(value * 1e6) / 1e6, qualifier: currency ?? qualifier });
  }
  return figures;
}

function monthsOf(text: string): Set<string> {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  return new Set(words.filter((word) => months.includes(word)));
}

function negationCount(text: string): number {
  return text.match(negations)?.length ?? 0;
}

/** Whether `figure` is stated in `source`: the same value, with the same qualifier when both have one. */
function stated(figure: Figure, source: readonly Figure[]): boolean {
  return source.some(
    (candidate) =>
      candidate.value === figure.value &&
      (figure.qualifier === '' || candidate.qualifier === '' || candidate.qualifier === figure.qualifier) &&
      // A percentage or an amount of money is never the same fact as a bare number of something else.
      !(figure.qualifier === '%' && candidate.qualifier !== '%') &&
      !(
        isCurrency(figure.qualifier) &&
        candidate.qualifier !== '' &&
        candidate.qualifier !== figure.qualifier
      ),
  );
}

function isCurrency(qualifier: string): boolean {
  return qualifier.length === 3 && qualifier === qualifier.toUpperCase();
}

/**
 * Why a claim's figures, months or negations do not agree with the source passage it was matched to, or undefined
 * when they do. Every figure of the claim must be stated in the source (the same value, scale applied, and the
 * same currency, percent sign or unit when both give one), every month it names must appear there, and the claim
 * is negated exactly when the passage is.
 */
export function figuresDisagree(claim: string, source: string, passage: string): string | undefined {
  const sourceFigures = figuresOf(source);
  for (const figure of figuresOf(claim)) {
    if (!stated(figure, sourceFigures))
      return `the figure ${figure.value}${figure.qualifier ? ` ${figure.qualifier}` : ''} is not in the source`;
  }
  const sourceMonths = monthsOf(source);
  for (const month of monthsOf(claim)) if (!sourceMonths.has(month)) return `${month} is not in the source`;
  if (negationCount(claim) > 0 !== negationCount(passage) > 0)
    return 'the claim and its source differ in negation';
  return undefined;
}
