// Records Go's sort.Slice order (the sort cel-go's sortBy uses) over key lists with many ties, as
// tests/fixtures/go_sort_slice.json, which tests/test_gosort.py holds apiserver/cel/gosort.py to.
//
// Usage, with the Go toolchain the reference was built with (../shared/reference/build.sh puts it in
// ~/k8s-ref/go/bin):  cd tools/go_sort_slice && GOFLAGS= go run . > ../../tests/fixtures/go_sort_slice.json
package main

import (
	"encoding/json"
	"math/rand"
	"os"
	"sort"
)

func main() {
	r := rand.New(rand.NewSource(7))
	var cases [][2][]int
	for c := 0; c < 120; c++ {
		n := r.Intn(160)
		span := 1 + r.Intn(6)
		keys := make([]int, n)
		for i := range keys {
			switch c % 4 {
			case 0: // few distinct keys in random order
				keys[i] = r.Intn(span)
			case 1: // descending, with ties
				keys[i] = n - i + r.Intn(span)
			case 2: // ascending runs of equal keys
				keys[i] = i / span
			default: // mostly distinct
				keys[i] = r.Intn(1000)
			}
		}
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(i, j int) bool { return keys[order[i]] < keys[order[j]] })
		cases = append(cases, [2][]int{keys, order})
	}
	if err := json.NewEncoder(os.Stdout).Encode(cases); err != nil {
		panic(err)
	}
}
