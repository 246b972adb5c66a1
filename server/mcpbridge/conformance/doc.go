// Package conformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, client scenarios) against
// formbridge as an MCP client: the suite runs `formbridge call`, whose
// questions go to a bridge whose widget is open in headless Chromium,
// where the send button is pressed on each form as it was prefilled.
// It also puts the proxy in front of an MCP server written with the
// TypeScript SDK the suite ships, a peer nobody here wrote.
//
// The test needs Node 22 and the suite under the tools folder
// ($FORMBRIDGE_TOOLS, else the repository's .tools; `make tools`
// installs both), Chromium and the built widget. Without them it skips;
// FORMBRIDGE_CONFORMANCE=require makes it fail instead.
package conformance
