package elicit

import "regexp"

// Kind is what sort of control a field needs and what type its answer has.
type Kind string

const (
	KindString      Kind = "string"      // answer: string
	KindNumber      Kind = "number"      // answer: JSON number
	KindInteger     Kind = "integer"     // answer: JSON number without fraction
	KindBoolean     Kind = "boolean"     // answer: true or false
	KindSelect      Kind = "select"      // one of Options; answer: its Value
	KindMultiSelect Kind = "multiselect" // some of Options; answer: []string in option order
)

// Format is a string field's format keyword. Only these are shown: a
// format the widget cannot check is refused rather than silently ignored.
type Format string

const (
	FormatNone     Format = ""
	FormatEmail    Format = "email"
	FormatURI      Format = "uri"
	FormatDate     Format = "date"      // YYYY-MM-DD
	FormatDateTime Format = "date-time" // RFC 3339 with an offset
)

// Option is one choice of a select. Value is what is sent (enum value or
// const); Title is what a person reads (equal to Value when untitled).
type Option struct {
	Value string `json:"value"`
	Title string `json:"title"`
}

// Field is one property of a requestedSchema, ready to render and check.
type Field struct {
	Key         string `json:"key"`
	Kind        Kind   `json:"kind"`
	Title       string `json:"title,omitempty"` // the schema's title, "" if none
	Label       string `json:"label"`           // Title, else the key humanised
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`

	// Strings.
	Format    Format `json:"format,omitempty"`
	MinLength *int   `json:"minLength,omitempty"`
	MaxLength *int   `json:"maxLength,omitempty"`
	Pattern   string `json:"pattern,omitempty"`
	// Example is a sample the pattern matches ("ABC-1234" for
	// "^[A-Z]{3}-\d{4}$"), for the person; "" when there is no honest one.
	Example string `json:"example,omitempty"`

	// Numbers and integers.
	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`

	// Selects and multi selects.
	Options  []Option `json:"options,omitempty"`
	MinItems *int     `json:"minItems,omitempty"`
	MaxItems *int     `json:"maxItems,omitempty"`

	// Default is the typed default, nil when the schema has none:
	// string, float64, bool, or []string for a multi select.
	Default any `json:"default,omitempty"`

	pattern *regexp.Regexp
}

// HasDefault reports whether the schema gave this field a default.
// default:false and default:"" are defaults too.
func (f *Field) HasDefault() bool { return f.Default != nil }

// Form is a parsed requestedSchema: its fields in the order the schema's
// JSON text lists them.
type Form struct {
	Fields []Field `json:"fields"`
}

// Field returns the field with the given key, or nil.
func (f *Form) Field(key string) *Field {
	if f == nil {
		return nil
	}
	for i := range f.Fields {
		if f.Fields[i].Key == key {
			return &f.Fields[i]
		}
	}
	return nil
}

// Inputs are the raw values of a form as a browser gives them, keyed by
// property key, like url.Values: one string for a text, number, date or
// select control; the chosen values for a multi select; for a boolean
// "true", "false" or "" (no answer). A missing key or "" means empty.
type Inputs map[string][]string

// Error codes of FieldError. They are stable: widgets and hosts match them.
const (
	CodeRequired    = "required"
	CodeTooShort    = "too_short"
	CodeTooLong     = "too_long"
	CodePattern     = "pattern"
	CodeFormat      = "format"
	CodeNotInteger  = "not_integer"
	CodeNotANumber  = "not_a_number"
	CodeTooSmall    = "too_small"
	CodeTooLarge    = "too_large"
	CodeNotAnOption = "not_an_option"
	CodeTooFew      = "too_few"
	CodeTooMany     = "too_many"
	CodeWrongType   = "wrong_type"  // content from a program, not a person
	CodeUnknownKey  = "unknown_key" // content from a program, not a person
	CodeDuplicate   = "duplicate"   // a choice listed twice: content from a program
)

// FieldError is one problem with one field's answer. Message is written
// for the person filling the form, not for a developer.
type FieldError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Limits on what a server may ask. Beyond these a schema is refused: a
// form this large is not something a person can answer honestly, and
// the bridge must not be made to hold or render unbounded input.
const (
	MaxSchemaBytes   = 256 << 10 // requestedSchema JSON text
	MaxProperties    = 100       // properties per form
	MaxOptions       = 1000      // options per select or multi select
	MaxFormOptions   = 2000      // options of all a form's selects together
	MaxTextRunes     = 10000     // any title, description or message
	MaxPatternLength = 1000      // a pattern's source text
)
