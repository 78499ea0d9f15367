// A catch that does nothing must say why, as a reader needs it: ESLint's no-empty takes any comment, even
// `/* gone */`, as a body. Here the comment must name what failed and why nothing is to be done, in four words
// or more (`// no terminal left to restore`, `// a full disk must not take the daemon down`).

const MIN_WORDS = 4;

const rule = {
  meta: {
    type: 'suggestion',
    docs: { description: 'an empty catch says why in its comment' },
    schema: [],
    messages: {
      why: 'an empty catch says why nothing is to be done, in a comment of {{min}} words or more (this one: {{words}})',
    },
  },
  create(context) {
    const source = context.sourceCode;
    return {
      CatchClause(node) {
        if (node.body.body.length > 0) return;
        const text = source
          .getCommentsInside(node.body)
          .map((c) => c.value)
          .join(' ');
        const words = text.split(/\s+/).filter((w) => /[a-z]/i.test(w)).length;
        if (words < MIN_WORDS) context.report({ node: node.body, messageId: 'why', data: { min: MIN_WORDS, words } });
      },
    };
  },
};

export const emptyCatchPlugin = { rules: { 'empty-catch': rule } };
