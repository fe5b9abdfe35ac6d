/**
 * The bearer token the test MCP server's `/mcp-bearer` endpoint wants (test/doubles/mcp-server.ts);
 * its own module, without Node imports, so workerd tests can read it too.
 */
export const mcpTestBearer = "mcp-bearer-7f3a9c1e5b2d4068";
