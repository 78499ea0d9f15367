// Lints source snippets at given paths with the layer rules alone (scripts/layers.mjs), for
// test/lint-layers.test.ts: stdin is [{file, code}], stdout the rule ids reported for each, in order.
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { layerConfigs } from '../../scripts/layers.mjs';

process.stdin.setEncoding('utf8');
let input = '';
for await (const chunk of process.stdin) input += chunk;
const cases = JSON.parse(input);
const eslint = new ESLint({
  cwd: new URL('../..', import.meta.url).pathname,
  overrideConfigFile: true,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...layerConfigs],
});
const reports = [];
for (const { file, code } of cases) {
  const [result] = await eslint.lintText(code, { filePath: file });
  reports.push(result.messages.map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`));
}
process.stdout.write(JSON.stringify(reports));
