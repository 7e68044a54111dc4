/** Checks for the commands' option values: each error names the option, the value and what it takes. */
import { Option } from 'commander';
import { DEFAULT_MAX_MEMBER_BYTES } from '../data/webdataset';

/** A whole number written in plain digits ("12", not "1e1", "0x10" or ""), at least `min`. */
export function parseWholeNumber(flag: string, value: string, min = 0): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${flag}: "${value}" is not a whole number ≥ ${min}`);
  return n;
}

/** A positive finite number. */
export function parsePositiveNumber(flag: string, value: string): number {
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag}: "${value}" is not a positive number`);
  return n;
}

/** One of `choices` (own keys only: "constructor" is not a preset). */
export function parseChoice<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) throw new Error(`${flag}: "${value}" is not ${orList(choices)}`);
  return value as T;
}

function orList(choices: readonly string[]): string {
  return choices.length <= 1 ? (choices[0] ?? 'valid') : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
}

/** A JSON option value (e.g. --features '{"backbone": …}'). */
export function parseJsonOption(flag: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (err) {
    throw new Error(`${flag}: not valid JSON (${(err as Error).message}): ${value}`);
  }
}

/**
 * `--max-member-bytes <n>`, for every command that reads webdataset shards / img2dataset output: members
 * larger than this are skipped unread and their sample rejected. Add it with `.addOption(maxMemberBytesOption())`
 * and read it with `parseMaxMemberBytes(flags.maxMemberBytes)`.
 */
export function maxMemberBytesOption(): Option {
  return new Option(
    '--max-member-bytes <n>',
    "shard members (images, captions, metadata) over this many bytes are skipped unread and their sample rejected (default 20 MiB, the fetcher's largest image)",
  ).default(String(DEFAULT_MAX_MEMBER_BYTES));
}

/** The `--max-member-bytes` value (undefined when the command was built without the option: the default cap). */
export function parseMaxMemberBytes(value: string | undefined): number | undefined {
  return value === undefined ? undefined : parseWholeNumber('--max-member-bytes', value, 1);
}
