// The lint a reviewer expects (eslint.config.mjs): typescript-eslint's type-checked rules on every TypeScript file,
// type-only imports marked, and a catch that does nothing says why (scripts/emptyCatch.mjs).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './helpers/daemon';
import { lint } from './helpers/lint';

function printConfig(file: string): Promise<{ rules: Record<string, unknown[]> }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--print-config', file],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    );
  });
}

const TYPE_CHECKED = [
  '@typescript-eslint/await-thenable',
  '@typescript-eslint/no-floating-promises',
  '@typescript-eslint/no-misused-promises',
  '@typescript-eslint/no-unsafe-argument',
  '@typescript-eslint/no-unsafe-member-access',
  '@typescript-eslint/restrict-template-expressions',
  '@typescript-eslint/unbound-method',
  '@typescript-eslint/consistent-type-imports',
  '@typescript-eslint/no-import-type-side-effects',
];

test("src and test files are linted with typescript-eslint's type-checked rules", async () => {
  for (const file of ['src/daemon/daemon.ts', 'src/extension/extension.ts', 'test/lint-config.test.ts']) {
    const { rules } = await printConfig(file);
    for (const rule of TYPE_CHECKED) {
      // The unsafe-any rules are off in tests alone: a test asserts on what it parsed.
      if (file.startsWith('test/') && rule.includes('no-unsafe-')) continue;
      assert.equal(rules[rule]?.[0], 2, `${rule} is an error in ${file}`);
    }
    assert.equal(rules['holdfast/empty-catch']?.[0], 2, `holdfast/empty-catch in ${file}`);
  }
});

test('a catch that does nothing says why in four words or more; one with a statement needs no comment', async () => {
  const [gone, blank, said, handled] = await lint([
    { file: 'src/daemon/x.ts', code: 'try { f(); } catch {\n  /* gone */\n}\n' },
    { file: 'src/daemon/x.ts', code: 'try { f(); } catch {}\n' },
    { file: 'src/daemon/x.ts', code: 'try { f(); } catch {\n  // the process is already gone: nothing to signal\n}\n' },
    { file: 'src/daemon/x.ts', code: 'try { f(); } catch (err) {\n  log(err);\n}\n' },
  ]);
  assert.equal(gone.length, 1, gone.join('\n'));
  assert.match(gone[0], /^holdfast\/empty-catch: an empty catch says why/);
  assert.equal(blank.length, 1, blank.join('\n'));
  assert.deepEqual(said, []);
  assert.deepEqual(handled, []);
});
