import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..');
const modules = readdirSync(dir).filter((f) => f.endsWith('.js'));

test('every module of the page parses', () => {
  assert.ok(modules.length > 10);
  for (const m of modules) {
    try {
      execFileSync(process.execPath, ['--check', join(dir, m)], { stdio: 'pipe' });
    } catch (e) {
      assert.fail(`${m}: ${e.stderr}`);
    }
  }
});

test('modules import only sibling modules that exist, one line each (what build.rs joins)', () => {
  for (const m of modules) {
    for (const line of readFileSync(join(dir, m), 'utf8').split('\n')) {
      if (!line.startsWith('import ')) continue;
      const dep = line.match(/^import \{[^}]*\} from '\.\/([a-z_]+\.js)';$/);
      assert.ok(dep, `${m}: ${line}`);
      assert.ok(modules.includes(dep[1]), `${m} imports ${dep[1]}`);
    }
  }
});
