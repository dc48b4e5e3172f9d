// Package errs is ws's one error type and its catalogue.
//
// Every failure a tool reports is an [*Error] with a stable [Code] (POSIX
// names for filesystem errors, as Mastra uses them; UPPER_SNAKE names for
// the rest) and the message shown to the model. The messages are made by
// the constructors here, one per message: [mastra.go] holds those whose
// wording is Mastra's (kept byte for byte, so prompts written for Mastra
// still match), [ws.go] those of ws's own. Callers never write a message
// inline; they pick the constructor, which fixes the code with the words.
package errs
