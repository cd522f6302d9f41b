// Writes FILE.gz beside every compressible file of the build (nginx's gzip_static sends
// it as is, so no request pays for compression), at zlib's best level. Node's zlib only:
// no dependency.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, gzipSync } from 'node:zlib';

const COMPRESSIBLE = /\.(html|js|css|json|svg|txt)$/;

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const root = process.argv[2] ?? 'dist';
for (const path of walk(root).filter((p) => COMPRESSIBLE.test(p))) {
  const gz = gzipSync(readFileSync(path), { level: constants.Z_BEST_COMPRESSION });
  writeFileSync(`${path}.gz`, gz);
}
