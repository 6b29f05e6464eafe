package scenarios

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
)

// libraryFiles are the design-validation scenarios that ship with sbsim, one YAML file each,
// commented with the question it answers and carrying its expectations.
//
//go:embed library/*.yaml
var libraryFiles embed.FS

// LibraryNames returns the names of the library's scenarios, sorted.
func LibraryNames() []string {
	entries, err := libraryFiles.ReadDir("library")
	if err != nil {
		panic(fmt.Sprintf("scenarios: the embedded library cannot be read: %v", err))
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// LibraryFile returns the text of the library scenario called name.
func LibraryFile(name string) ([]byte, error) {
	data, err := libraryFiles.ReadFile(path.Join("library", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w (the library has: %s)", name, ErrUnknownScenario, strings.Join(LibraryNames(), ", "))
	}
	return data, nil
}

// LoadLibrary loads the library scenario called name.
func LoadLibrary(name string) (*File, error) {
	data, err := LibraryFile(name)
	if err != nil {
		return nil, err
	}
	return Load(name+".yaml", data)
}
