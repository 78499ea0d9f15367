// Where text reaches VS Code's UI, as ESLint configs (eslint.config.mjs spreads them; test/lint-ui-sinks.test.ts
// lints snippets with them). VS Code renders links (`[x](command:…)` runs a command) and icons (`$(name)`) in
// notifications, input boxes, quick picks, the status bar, badges and terminal names, and a program controls
// much of what Holdfast shows there. So only src/extension/ui.ts calls those parts of VS Code, and it takes
// only UiText, which src/text/uiText.ts alone makes (`as UiText` is refused everywhere else).

const UI_MODULE = 'src/extension/ui.ts';
const UI_TEXT_MODULE = 'src/text/uiText.ts';

/** VS Code's calls that put text on screen, by name whatever they are called on. */
const UI_CALLS = [
  'showInformationMessage',
  'showWarningMessage',
  'showErrorMessage',
  'showInputBox',
  'showQuickPick',
  'createQuickPick',
  'createInputBox',
  'setStatusBarMessage',
  'createStatusBarItem',
  'withProgress',
  'createTerminal',
  'createTreeView',
  'registerTreeDataProvider',
  'createWebviewPanel',
  'registerHoverProvider',
];
/** Constructors of text VS Code renders: as markdown, in a tree, as a terminal's name. */
const UI_CLASSES = ['MarkdownString', 'TreeItem', 'Hover', 'TerminalProfile'];
/** A rendered text field of a VS Code object set directly (a view's badge or description, an item's text). */
const UI_FIELDS = [
  'badge',
  'description',
  'tooltip',
  'text',
  'title',
  'label',
  'detail',
  'message',
  'prompt',
  'validationMessage',
  'placeholder',
];

const uiText = 'UiText';
const castMessage = `only ${UI_TEXT_MODULE} makes UiText: use ui\`…\` for our text and uiText() for any other.`;
const sinkMessage = `VS Code's UI renders links and icons: call it through ${UI_MODULE}, which takes UiText.`;

const castRules = [
  { selector: `TSAsExpression > TSTypeReference.typeAnnotation[typeName.name='${uiText}']`, message: castMessage },
  { selector: `TSTypeAssertion > TSTypeReference.typeAnnotation[typeName.name='${uiText}']`, message: castMessage },
];
const sinkRules = [
  {
    selector: `CallExpression > MemberExpression.callee[property.name=/^(${UI_CALLS.join('|')})$/]`,
    message: sinkMessage,
  },
  {
    selector: `NewExpression > MemberExpression.callee[property.name=/^(${UI_CLASSES.join('|')})$/]`,
    message: sinkMessage,
  },
  { selector: `NewExpression > Identifier.callee[name=/^(${UI_CLASSES.join('|')})$/]`, message: sinkMessage },
  {
    selector: `AssignmentExpression > MemberExpression.left[property.name=/^(${UI_FIELDS.join('|')})$/]`,
    message: sinkMessage,
  },
];

// One block per set of files: a later no-restricted-syntax replaces an earlier one for the same file.
export const uiSinkConfigs = [
  {
    files: ['src/**/*.ts'],
    ignores: ['src/extension/**', UI_TEXT_MODULE],
    rules: { 'no-restricted-syntax': ['error', ...castRules] },
  },
  {
    // The webview is a page of its own: it sets DOM text (textContent, title attributes), which renders neither.
    files: ['src/extension/**/*.ts'],
    ignores: [UI_MODULE, 'src/extension/webview/**'],
    rules: { 'no-restricted-syntax': ['error', ...castRules, ...sinkRules] },
  },
  {
    files: [UI_MODULE, 'src/extension/webview/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...castRules] },
  },
];
