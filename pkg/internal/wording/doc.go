// Package wording holds the small pieces of English the texts of several
// tools share: a count's noun, singular or plural, a list joined with
// "and", the first line of a command's stderr, and a path written as one
// shell word in a command a hint suggests.
package wording
