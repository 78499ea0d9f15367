// Pure Node: what names a session in this window, shared with the CLI and the MCP server (src/link/sessionKey.ts).
export { onHost, parseKey, remoteKey } from '../link/sessionKey';
