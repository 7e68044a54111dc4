'use strict';
// The digest of native/'s sources, in one place: scripts/build-native.mjs compiles it into the addon, and
// src/tf/native-kernels.ts refuses an addon whose digest differs from the sources beside it.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

/** sha256 over native/*.c and *.h: name, NUL, content, NUL, names sorted. */
function nativeSourceDigest(nativeDir) {
  const hash = crypto.createHash('sha256');
  const files = fs
    .readdirSync(nativeDir)
    .filter((f) => /\.[ch]$/.test(f))
    .sort();
  for (const f of files)
    hash
      .update(`${f}\0`)
      .update(fs.readFileSync(path.join(nativeDir, f)))
      .update('\0');
  return hash.digest('hex');
}

module.exports = { nativeSourceDigest };
