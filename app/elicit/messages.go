package elicit

import (
	"math"
	"strconv"
)

// This file writes the messages a person reads next to a field. They
// say what to do, with the field's own limits, in words a person who has
// never heard of JSON understands: "Enter a whole number between 1 and
// 100", not "value violates maximum".

// message returns the plain message for code on f.
func (f *Field) message(code string) string {
	switch code {
	case CodeRequired:
		switch f.Kind {
		case KindSelect:
			return "Choose one of the options"
		case KindMultiSelect:
			if f.MinItems != nil && *f.MinItems > 1 {
				return f.countMessage()
			}
			return "Choose at least one"
		}
		return "This is required"
	case CodeTooShort, CodeTooLong:
		return f.lengthMessage()
	case CodePattern:
		if f.Example != "" {
			return "Enter it in this format: " + f.Example
		}
		if f.Description != "" {
			return "Use the format the description asks for"
		}
		return "This is not in the expected format"
	case CodeFormat:
		return formatMessage(f.Format)
	case CodeNotInteger, CodeNotANumber, CodeTooSmall, CodeTooLarge:
		return f.numberMessage()
	case CodeNotAnOption:
		switch f.Kind {
		case KindMultiSelect:
			return "Choose only from the options"
		case KindBoolean:
			return "Choose yes or no"
		}
		return "Choose one of the options"
	case CodeTooFew, CodeTooMany:
		return f.countMessage()
	case CodeDuplicate:
		return "Choose each option only once"
	case CodeWrongType:
		switch f.Kind {
		case KindNumber:
			return "This answer should be a number"
		case KindInteger:
			return "This answer should be a whole number"
		case KindBoolean:
			return "This answer should be yes or no"
		case KindMultiSelect:
			return "This answer should be a list of choices"
		}
		return "This answer should be text"
	case CodeUnknownKey:
		return "This answer is not one of the questions asked"
	}
	return "Check this answer"
}

func formatMessage(fm Format) string {
	switch fm {
	case FormatEmail:
		return "Enter an email address, like name@example.com"
	case FormatURI:
		return "Enter a web address, like https://example.com"
	case FormatDate:
		return "Enter a date, like 2026-12-31"
	case FormatDateTime:
		return "Enter a date and time"
	}
	return "This is not in the expected format"
}

// numberMessage: "Enter a whole number between 1 and 100". An integer's
// bounds are rounded inward (minimum 0.5 reads "1 or more"), since
// those are the whole numbers a person can actually type.
func (f *Field) numberMessage() string {
	noun := "a number"
	var lo, hi *float64
	if f.Minimum != nil {
		x := *f.Minimum
		lo = &x
	}
	if f.Maximum != nil {
		x := *f.Maximum
		hi = &x
	}
	if f.Kind == KindInteger {
		noun = "a whole number"
		if lo != nil {
			*lo = math.Ceil(*lo)
		}
		if hi != nil {
			*hi = math.Floor(*hi)
		}
	}
	switch {
	case lo != nil && hi != nil:
		if *lo == *hi {
			return "Enter " + formatNumber(*lo)
		}
		return "Enter " + noun + " between " + formatNumber(*lo) + " and " + formatNumber(*hi)
	case lo != nil:
		return "Enter " + noun + " that is " + formatNumber(*lo) + " or more"
	case hi != nil:
		return "Enter " + noun + " that is " + formatNumber(*hi) + " or less"
	}
	return "Enter " + noun
}

// lengthMessage: "Enter at least 3 characters".
func (f *Field) lengthMessage() string {
	switch {
	case f.MinLength != nil && f.MaxLength != nil:
		if *f.MinLength == *f.MaxLength {
			return "Enter exactly " + characters(*f.MinLength)
		}
		return "Enter between " + strconv.Itoa(*f.MinLength) + " and " + characters(*f.MaxLength)
	case f.MinLength != nil:
		return "Enter at least " + characters(*f.MinLength)
	case f.MaxLength != nil:
		return "Enter at most " + characters(*f.MaxLength)
	}
	return "This is required"
}

// countMessage: "Choose at most 2".
func (f *Field) countMessage() string {
	switch {
	case f.MinItems != nil && f.MaxItems != nil:
		if *f.MinItems == *f.MaxItems {
			return "Choose exactly " + strconv.Itoa(*f.MinItems)
		}
		return "Choose between " + strconv.Itoa(*f.MinItems) + " and " + strconv.Itoa(*f.MaxItems)
	case f.MinItems != nil:
		return "Choose at least " + strconv.Itoa(*f.MinItems)
	case f.MaxItems != nil:
		return "Choose at most " + strconv.Itoa(*f.MaxItems)
	}
	return "Choose only from the options"
}

func characters(n int) string {
	if n == 1 {
		return "1 character"
	}
	return strconv.Itoa(n) + " characters"
}

// formatNumber writes x as a person writes it: no exponent, no trailing
// ".0" ("100", "2.5", "-0.001").
func formatNumber(x float64) string {
	if x == 0 {
		return "0" // also for -0
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}
