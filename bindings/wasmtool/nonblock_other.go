//go:build !unix

package wasmtool

const nonBlock = 0
