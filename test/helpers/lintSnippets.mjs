// Lints source snippets at given paths with the layer, UI sink and empty-catch rules alone
// (scripts/layers.mjs, scripts/uiSinks.mjs, scripts/emptyCatch.mjs), for test/lint-*.test.ts (helpers/lint.ts):
// stdin is [{file, code}], stdout the rule ids and messages reported for each, in order.
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { layerConfigs } from '../../scripts/layers.mjs';
import { uiSinkConfigs } from '../../scripts/uiSinks.mjs';
import { emptyCatchPlugin } from '../../scripts/emptyCatch.mjs';

process.stdin.setEncoding('utf8');
let input = '';
for await (const chunk of process.stdin) input += chunk;
const cases = JSON.parse(input);
const eslint = new ESLint({
  cwd: new URL('../..', import.meta.url).pathname,
  overrideConfigFile: true,
  overrideConfig: [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
    ...layerConfigs,
    ...uiSinkConfigs,
    { files: ['**/*.ts'], plugins: { holdfast: emptyCatchPlugin }, rules: { 'holdfast/empty-catch': 'error' } },
  ],
});
const reports = [];
for (const { file, code } of cases) {
  const [result] = await eslint.lintText(code, { filePath: file });
  reports.push(result.messages.map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`));
}
process.stdout.write(JSON.stringify(reports));
