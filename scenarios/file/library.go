package file

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

// libraryFiles are the design-validation scenarios that ship with sbsim, one YAML file each,
// commented with the question it answers and carrying its expectations.
//
//go:embed library/*.yaml
var libraryFiles embed.FS

// ErrUnknownScenario is returned for a name the library does not have.
var ErrUnknownScenario = errors.New("unknown scenario")

// Showcase is the library scenario `simulate` runs when it is given no scenario.
const Showcase = "lossy-wan"

// LibraryNames returns the names of the library's scenarios, sorted.
func LibraryNames() []string {
	entries, err := libraryFiles.ReadDir("library")
	if err != nil {
		panic(fmt.Sprintf("file: the embedded library cannot be read: %v", err))
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// LibraryText returns the text of the library scenario called name.
func LibraryText(name string) ([]byte, error) {
	data, err := libraryFiles.ReadFile(path.Join("library", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w (the library has: %s)", name, ErrUnknownScenario, strings.Join(LibraryNames(), ", "))
	}
	return data, nil
}

// Library loads the library scenario called name.
func Library(name string) (*Scenario, error) {
	data, err := LibraryText(name)
	if err != nil {
		return nil, err
	}
	return Load(name+".yaml", data)
}

// IsPath reports whether a command-line argument names a file rather than a library
// scenario: it ends in .yaml or .yml, or holds a path separator.
func IsPath(arg string) bool {
	return strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") || strings.ContainsRune(arg, os.PathSeparator) ||
		strings.ContainsRune(arg, '/')
}

// Open loads the scenario an argument names: the file at a path (IsPath), or the library
// scenario of that name.
func Open(arg string) (*Scenario, error) {
	if IsPath(arg) {
		return LoadFile(arg)
	}
	return Library(arg)
}

// hashText is the hash of a scenario's text that summary.json records: the first 8 bytes
// of its SHA-256, in hex.
func hashText(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}
