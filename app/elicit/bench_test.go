package elicit

import "testing"

// The bridge parses every request and validates every answer; these
// show what one costs for a form of every kind.

func BenchmarkParseRequest(b *testing.B) {
	params := []byte(`{"message":"Tell us","requestedSchema":` + allKinds + `}`)
	b.SetBytes(int64(len(params)))
	for b.Loop() {
		if _, err := ParseRequest(params); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	form := mustParse(b, allKinds)
	content := map[string]any{"name": "Ann", "ok": true, "email": "ann@example.com", "code": "ABC",
		"age": 42.0, "at": "2026-12-02T10:30:00+01:00", "tags": []any{"a", "c"}}
	for b.Loop() {
		if errs := form.Validate(content); errs != nil {
			b.Fatal(errs)
		}
	}
}

func BenchmarkCollect(b *testing.B) {
	form := mustParse(b, allKinds)
	in := Inputs{"name": {"Ann"}, "ok": {"true"}, "email": {"ann@example.com"}, "code": {"ABC"},
		"age": {"42"}, "at": {"2026-12-02T10:30"}, "tags": {"c", "a"}}
	for b.Loop() {
		if _, errs := form.Collect(in, nil); errs != nil {
			b.Fatal(errs)
		}
	}
}
