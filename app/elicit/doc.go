// Package elicit is formbridge's model of an MCP elicitation: what form a
// person sees for a requestedSchema, and exactly what is sent back.
//
// It has no UI and no transport, and imports the standard library only,
// because both sides use it: the bridge to parse every request, refuse
// bad schemas and links, and never forward an invalid answer; the widget
// (compiled to WebAssembly) to render the [Form] the bridge sends it (as
// JSON, see [Field.UnmarshalJSON]) and check answers as the person types.
// The widget links no parser: what it does not call, the linker drops.
//
// The flow of one form:
//
//   - [ParseRequest] (or [Parse] for the schema alone) turns the JSON into
//     a [Form] whose fields keep the order of the JSON text. A schema that
//     cannot be shown honestly is a [*SchemaError] listing every problem
//     with its JSON Pointer; the bridge answers it with JSON-RPC -32602.
//   - [Form.Initial] gives the inputs to prefill from the schema's
//     defaults (SEP-1034); [Form.Sensitive] flags fields that look like
//     they ask for a password, key or card number: the bridge sends the
//     flags with the form, so the widget can warn.
//   - [Form.Collect] turns what the person typed into typed content, or
//     into per-field errors ([FieldError]) with stable codes and
//     plain-English messages.
//   - [Form.Validate] checks content from anywhere (the bridge runs it on
//     every answer a widget sends).
//
// [Humanize] makes a label from a property key that has no title (the
// parser fills Field.Label with it). Helpers for the widget: [LocalDateTime] and [DateTimeLocalValue] convert
// between RFC 3339 and the offset-less value of a datetime-local control.
//
// URL-mode links are checked by [CheckURL]: only https (and http to this
// machine) may be opened, and misleading hosts get warnings.
//
// Limits ([MaxSchemaBytes], [MaxProperties], [MaxOptions], [MaxFormOptions], [MaxTextRunes])
// bound what a server may ask, so a form stays something a person can
// answer and the bridge never holds unbounded input.
package elicit
