// Package config reads ws's JSON configuration file. The file is shaped like
// the options of Mastra's Workspace constructor (filesystem, sandbox, tools,
// search, skills); functions in Mastra's options become commands here. Every
// key is checked: an unknown key or a value of the wrong type is an error
// that names the key.
package config
