// Input a person or a program gave that cannot be used (an unknown key name or signal): the shared
// parsers throw this, and each side says it its own way (the CLI as a usage error, exit 2; MCP as a tool error).
export class InputError extends Error {}
