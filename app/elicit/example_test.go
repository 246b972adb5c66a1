package elicit_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
)

func Example() {
	req, err := elicit.ParseRequest([]byte(`{
		"message": "Book the team lunch",
		"requestedSchema": {
			"type": "object",
			"properties": {
				"guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 20, "default": 4},
				"when":   {"type": "string", "format": "date-time"},
				"diet":   {"type": "array", "items": {"anyOf": [
					{"const": "veg", "title": "Vegetarian"},
					{"const": "gf",  "title": "Gluten free"}]}},
				"notes":  {"type": "string"}
			},
			"required": ["guests", "when"]
		}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	form := req.Form
	for _, f := range form.Fields {
		fmt.Printf("%s (%s)\n", f.Label, f.Kind)
	}

	// The person types a guest count out of range.
	in := form.Initial()
	in["guests"] = []string{"40"}
	_, errs := form.Collect(in, nil)
	for _, e := range errs {
		fmt.Printf("%s: %s\n", e.Field, e.Message)
	}

	// Then fixes it, picks a time in their own zone, and ticks one option.
	in["guests"] = []string{"12"}
	in["when"] = []string{"2026-12-18T12:30"}
	in["diet"] = []string{"gf"}
	cet := &elicit.CollectOptions{UTCOffset: func(time.Time) time.Duration { return time.Hour }}
	content, _ := form.Collect(in, cet)
	out, _ := json.Marshal(content)
	fmt.Println(string(out))
	// Output:
	// Guests (integer)
	// When (string)
	// Diet (multiselect)
	// Notes (string)
	// guests: Enter a whole number between 1 and 20
	// when: This is required
	// {"diet":["gf"],"guests":12,"when":"2026-12-18T12:30:00+01:00"}
}

func ExampleCheckURL() {
	info, err := elicit.CheckURL("https://accounts.example.co.uk:8443/authorize")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Host, info.Domain)
	for _, w := range info.Warnings {
		fmt.Println(w.Code+":", w.Message)
	}
	_, err = elicit.CheckURL("javascript:alert(1)")
	fmt.Println(err)
	// Output:
	// accounts.example.co.uk example.co.uk
	// port: The address has an unusual number after the site name (:8443); websites seldom need one.
	// "javascript:" links cannot be opened; only https links can
}
