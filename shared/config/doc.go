// Package config reads the service's settings from the environment, the
// way Lambda hands them over, with the defaults docs/configuration.md
// documents. Every function and the local gateway read the same names, so
// a setting means the same thing everywhere. Load reads and checks them
// all, reporting every bad one at once; Require names the settings a
// function cannot run without.
package config
