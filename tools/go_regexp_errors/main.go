// Records Go's regexp.Compile error for generated patterns (most of which do not parse), as
// tests/fixtures/go_regexp_errors.json, which tests/test_goregexp.py holds apiserver/cel/goregexp.py to.
// The pieces are the ones where RE2's parser, which goregexp asks, and Go's differ or might: \C, counts
// out of range beside other repetitions, \x{...}, flags, named captures, classes, \Q...\E.
//
// Usage, with the Go toolchain the reference was built with (../shared/reference/build.sh puts it in
// ~/k8s-ref/go/bin):  cd tools/go_regexp_errors && GOFLAGS= go run . > ../../tests/fixtures/go_regexp_errors.json
package main

import (
	"encoding/json"
	"math/rand"
	"os"
	"regexp"
	"strings"
)

var pieces = []string{
	"a", "b", "(", ")", "[", "]", "^", "-", "*", "+", "?", "{", "}", "2", ",", "1000", "1001", `\`, `\d`, `\C`,
	`\Q`, `\E`, "(?", "P<", "<", ">", "n", ":", "|", "[:alpha:]", "[:foo:]", `\p{Greek}`, `\pX`, `\x{41}`,
	`\x{110000}`, `\8`, `\z`, `\Z`, "i", "s", "U", "x", "'", ".", "$", `\b`, `\B`, `\A`, "é", "[^", `[\d-`, `\pN`,
	`\P{^Greek}`, "(?i:", "(?s)", "(?-s:", "{3}", "{0,1001}", "{,", `\x41`, `\x`, `\101`, `\1`, `\0`, `\v`,
	`\a`, `\e`, `\f`, `\Q(`, `\-`, `\]`, `\w`, `\W`, "[[:^alpha:]]", "(?U)",
}

func main() {
	r := rand.New(rand.NewSource(11))
	var cases [][2]string
	for c := 0; c < 2000; c++ {
		var b strings.Builder
		for n := 1 + r.Intn(10); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		pattern, refusal := b.String(), ""
		if _, err := regexp.Compile(pattern); err != nil {
			refusal = err.Error()
		}
		cases = append(cases, [2]string{pattern, refusal})
	}
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	if err := out.Encode(cases); err != nil {
		panic(err)
	}
}
