// Package repocheck holds tests of the repository as a whole: the import rules
// of docs/design.md, and that CI runs what it promises. It has no code.
package repocheck
