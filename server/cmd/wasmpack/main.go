// Command wasmpack rewrites a WebAssembly module so it compresses well,
// for make wasm: wasmpack IN OUT. See package wasmpack.
package main

import (
	"fmt"
	"os"

	"github.com/formbridge/formbridge/server/internal/wasmpack"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: wasmpack IN.wasm OUT.wasm")
		os.Exit(2)
	}
	if err := wasmpack.PackFile(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "wasmpack:", err)
		os.Exit(1)
	}
}
