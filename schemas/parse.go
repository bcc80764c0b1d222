package schemas

import (
	"fmt"
	"strconv"
	"strings"
)

// asciiSpace is what the schema strips around bool and integer labels. Python
// str.strip() also strips Unicode spaces; keel accepts ASCII only, on purpose,
// so that a value looks the same to every reader.
const asciiSpace = " \t\n\v\f\r"

// ParseBool parses a boolean label the way Magnum does (oslo.utils
// strutils.bool_from_string with strict=True): surrounding whitespace is
// ignored, then 1/0, true/false, yes/no, on/off, y/n, t/f in any case. It is
// the project's only bool parser for labels; the schema's #boolRe accepts
// exactly the same strings (the tests check both agree).
func ParseBool(s string) (bool, error) {
	switch asciiLower(strings.Trim(s, asciiSpace)) {
	case "1", "t", "true", "on", "y", "yes":
		return true, nil
	case "0", "f", "false", "off", "n", "no":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean: use true/false, yes/no, on/off, y/n, t/f or 1/0", s)
}

// asciiLower lowercases ASCII letters only: strings.ToLower would also fold
// non-ASCII runes, which Magnum does not accept.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ParseInt parses an integer label the way Magnum does (oslo.utils
// strutils.validate_integer, i.e. Python int(str(v))): surrounding whitespace,
// an optional sign, decimal digits with single underscores between digits.
// Values outside int64 are refused.
func ParseInt(s string) (int64, error) {
	t := strings.Trim(s, asciiSpace)
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) > 1 || !validDigits(digits) {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer in range", s)
	}
	return n, nil
}

// validDigits reports whether s is digits with single underscores between
// digit runs (Python's rule for int literals in strings).
func validDigits(s string) bool {
	if s == "" {
		return false
	}
	prevDigit := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			prevDigit = true
		case c == '_' && prevDigit && i+1 < len(s):
			prevDigit = false
		default:
			return false
		}
	}
	return prevDigit
}
