/** CC3M §3: dates and durations are removed ("on May 5, 2015", "in 2012", "for 10 minutes"), found by patterns over the tokens. */
import { Piece } from './pieces';
import {
  DATE_PREPOSITIONS,
  DATE_WORDS,
  DURATION_UNITS,
  MONTHS,
  MONTH_ABBREVIATIONS,
  NUMBER_WORDS,
  PERIODS,
  RELATIVE,
  TIME_WORDS,
  WEEKDAYS,
  isNumber,
  isYear,
} from './words';

/** Marks the dates and durations of `p` gone, with the preposition or comma that introduced each. */
export function dropDates(p: Piece[]): void {
  const n = p.length;
  const w = (i: number): string => (i >= 0 && i < n ? p[i]!.lower : '');
  const mark = (a: number, b: number): void => {
    // and the preposition / comma that introduced it
    let s = a;
    while (s > 0 && (w(s - 1) === ',' || DATE_PREPOSITIONS.has(w(s - 1)))) {
      s--;
      if (DATE_PREPOSITIONS.has(w(s))) break;
    }
    for (let k = s; k < b; k++) p[k]!.gone = true;
  };
  for (let i = 0; i < n; i++) {
    if (p[i]!.gone) continue;
    const t = w(i);
    let end = -1;
    const monthLike = MONTHS.has(t) || (MONTH_ABBREVIATIONS.has(t.replace(/\.$/, '')) && (isNumber(w(i + 1)) || isYear(w(i + 1))));
    // "may" the verb: a month only next to a number or after "in/on" with a year
    const month = monthLike && (t !== 'may' && t !== 'march' ? true : isNumber(w(i + 1)) || isYear(w(i + 1)) || isNumber(w(i - 1)));
    if (month) {
      end = i + 1;
      if (isNumber(w(end)) && !isYear(w(end))) end++;
      if (w(end) === ',' && isYear(w(end + 1))) end += 2;
      else if (isYear(w(end))) end++;
      if (isNumber(w(i - 1)) && !isYear(w(i - 1))) i--; // "5 May 2015"
    } else if (WEEKDAYS.has(t) || DATE_WORDS.has(t)) {
      end = i + 1;
      if (w(end) === ',') end++;
      if (MONTHS.has(w(end))) continue; // handled at the month
    } else if (RELATIVE.has(t) && PERIODS.has(w(i + 1))) {
      end = i + 2;
    } else if (isYear(t) && (i === 0 || DATE_PREPOSITIONS.has(w(i - 1)) || w(i - 1) === ',' || w(i - 1) === '-' || i === n - 1 || PERIODS.has(w(i - 1)))) {
      end = i + 1;
      if (PERIODS.has(w(i - 1))) i--; // "summer 2015"
    } else if (
      (isNumber(t) || NUMBER_WORDS.has(t) || t === 'a' || t === 'few' || t === 'several') &&
      DURATION_UNITS.has(w(i + 1)) &&
      w(i + 2) !== 'old' &&
      w(i + 2) !== '-'
    ) {
      if (t === 'a' && !['for', 'after', 'in'].includes(w(i - 1))) continue;
      end = i + 2; // "for 10 minutes"
    } else if (/^\d{1,2}(:\d\d)?$/.test(t) && TIME_WORDS.has(w(i + 1))) {
      end = i + 2;
    } else if (/^\d{1,2}:\d\d$/.test(t)) {
      end = i + 1;
    }
    if (end > i) {
      mark(i, end);
      i = end - 1;
    }
  }
}
