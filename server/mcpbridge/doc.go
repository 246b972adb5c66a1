// Package mcpbridge is formbridge's MCP side, built on the official go-sdk.
//
// It has three parts:
//   - an adapter: [ClientOptions] gives a go-sdk client an
//     ElicitationHandler and ElicitationCompleteHandler bound to a formbridge
//     channel, so a Go host that already uses the go-sdk sends its
//     elicitations to a person in one line;
//   - a proxy ([Proxy]) that stands between an MCP host and an MCP server,
//     relays every JSON-RPC message, and answers the server's elicitations
//     through formbridge;
//   - a one-shot client ([Call]) that calls one tool and routes its
//     elicitations to the widget.
//
// All three talk to the bridge through [Eliciter], which the hub implements,
// so this package does not depend on how requests reach a person.
package mcpbridge
