package tsql

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

func corpusDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("testdata/corpus")
	require.NoError(t, err)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	require.GreaterOrEqual(t, len(dirs), 10, "the corpus has at least ten deployments")
	return dirs
}

// Every script of the corpus imports to a scenario that loads, validates and runs with
// every invariant and the liveness phase holding, the workload skeleton delivering.
func TestTheCorpusImportsValidatesAndRuns(t *testing.T) {
	for _, dir := range corpusDirs(t) {
		t.Run(dir, func(t *testing.T) {
			d, err := Import([]string{filepath.Join("testdata/corpus", dir)}, Options{})
			require.NoError(t, err)
			out, err := d.YAML()
			require.NoError(t, err)
			f, err := file.Load(dir+".yaml", out)
			require.NoError(t, err, "%s", out)
			assert.NotEmpty(t, f.Config.Workloads, "a workload skeleton")
			res, err := scenarios.Run(f.Config, 1)
			require.NoError(t, err)
			require.True(t, res.InvariantsChecked)
			require.Nil(t, res.Violation, "%s", out)
			delivered := int64(0)
			for _, w := range res.Workloads {
				delivered += w.MessagesReceived
			}
			assert.Positive(t, delivered, "the skeleton's messages arrive")
		})
	}
}

// Each broken script fails at the place its first line names, with its message.
func TestEachBrokenScriptFailsWhereItSays(t *testing.T) {
	want := regexp.MustCompile(`^-- want: (\d+:\d+) (.*)$`)
	paths, err := filepath.Glob("testdata/errors/*.sql")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 10)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			m := want.FindStringSubmatch(strings.SplitN(string(data), "\n", 2)[0])
			require.NotNil(t, m, "the first line says what is wanted")
			_, err = Import([]string{p}, Options{})
			require.Error(t, err)
			var e *Error
			require.True(t, errors.As(err, &e), "%v", err)
			assert.Equal(t, p+":"+m[1], e.Pos.String(), "%v", err)
			assert.Contains(t, e.Msg, strings.TrimSpace(m[2]))
		})
	}
}

// The scripts that mirror library scenarios import to the library file's catalog, object
// for object: the import and the hand-written file agree on what the T-SQL means.
func TestTheMirrorsImportToTheLibrarysCatalog(t *testing.T) {
	for _, name := range []string{"single-conversation-activation", "branch-gateway"} {
		t.Run(name, func(t *testing.T) {
			d, err := Import([]string{"testdata/corpus/mirror-" + name}, Options{})
			require.NoError(t, err)
			lib, err := file.Library(name)
			require.NoError(t, err)
			assert.Equal(t, lib.Config.Instances, d.Scenario.Config.Instances)
			// The same programs: the library's wait_for is the default the T-SQL's TIMEOUT 5000 spells.
			want := append([]scenarios.Procedure(nil), lib.Config.Procedures...)
			for i := range want {
				if want[i].WaitFor == 0 {
					want[i].WaitFor = scenarios.DefaultProcedureWaitFor
				}
			}
			assert.Equal(t, want, d.Scenario.Config.Procedures)
		})
	}
}

// docs/import.md's table of the skeleton gives the skeleton's constants.
func TestTheSkeletonTableIsTheCode(t *testing.T) {
	data, err := os.ReadFile("../../docs/import.md")
	require.NoError(t, err)
	doc := string(data)
	for _, want := range []string{
		fmt.Sprintf("%d dialogs, one every second on average (exponential), one message of 1,024 bytes", SkeletonDialogs),
		"| links | 1 ms each way", "`max_time: 10m`"} {
		assert.Contains(t, doc, want)
	}
	assert.Equal(t, time.Second, SkeletonInterarrival)
	assert.Equal(t, 1024, SkeletonSize)
	assert.Equal(t, time.Millisecond, SkeletonLatency)
	assert.Equal(t, 10*time.Minute, SkeletonMaxTime)
}

// A database project's folder is one database, the .sqlproj's name, and its SQLCMD
// variables have the project's default values; -var and -db win over them.
func TestADatabaseProjectIsItsDatabaseWithItsVariables(t *testing.T) {
	d, err := Import([]string{"testdata/corpus/dbproject"}, Options{})
	require.NoError(t, err)
	require.Len(t, d.Scenario.Config.Instances[0].Databases, 1)
	assert.Equal(t, "OrdersDb", d.Scenario.Config.Instances[0].Databases[0].Name)
	assert.Len(t, d.Scenario.Config.Instances[0].Databases[0].Queues, 2)
	d, err = Import([]string{"testdata/corpus/dbproject"}, Options{Database: "Other", Vars: map[string]string{"masterkeypassword": "x"}})
	require.NoError(t, err)
	assert.Equal(t, "Other", d.Scenario.Config.Instances[0].Databases[0].Name)
	_, err = Import([]string{"testdata/corpus/dbproject/Security"}, Options{})
	require.Error(t, err, "without the project, $(MasterKeyPassword) is undefined")
	assert.Contains(t, err.Error(), "$(MasterKeyPassword) is not defined")
}
