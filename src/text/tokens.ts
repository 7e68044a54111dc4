/** Special token ids, fixed in every caption vocabulary. */
export const PAD_ID = 0;
export const BOS_ID = 1;
export const EOS_ID = 2;
export const UNK_ID = 3;
export const MASK_ID = 4;

/** CC12M's placeholder for a person's name (Sec. 3.1); one token in every tokenizer and vocabulary. */
export const PERSON_TOKEN = '<PERSON>';
