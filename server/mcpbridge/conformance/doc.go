// Package conformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, client scenarios) against
// formbridge as an MCP client: the suite runs `formbridge call`, whose
// questions go to a bridge whose widget is open in headless Chromium,
// where the send button is pressed on each form as it was prefilled.
// It also meets peers nobody here wrote, on the TypeScript SDK the suite
// ships: the proxy in front of a TypeScript server, and formbridge proxy
// run by a TypeScript host with a widget speaking the wire protocol from
// Node's own WebSocket.
//
// The test needs Node 22 and the suite under the tools folder
// ($FORMBRIDGE_TOOLS, else the repository's .tools; `make tools`
// installs both), Chromium and the built widget. Without them it skips;
// FORMBRIDGE_CONFORMANCE=require makes it fail instead.
package conformance
