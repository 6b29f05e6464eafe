package tsql

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// systemTypes are the Service Broker message types a procedure compares
// message_type_name with, by the name a program's handler gives them.
var systemTypes = map[string]string{
	"http://schemas.microsoft.com/sql/servicebroker/enddialog":   "EndDialog",
	"http://schemas.microsoft.com/sql/servicebroker/error":       "Error",
	"http://schemas.microsoft.com/sql/servicebroker/dialogtimer": "DialogTimer",
}

// program is what an activation procedure's body was read as.
type program struct {
	proc scenarios.Procedure
	// recognised is false when the body has no RECEIVE: proc is then G-7's reference
	// program, and why says what was missing.
	recognised bool
	// understood lists what the reading found; why what it did not understand.
	understood, why []string
	// handlers are the statements run for each message type the body compares
	// message_type_name with ("" for the statements under no comparison, or ELSE).
	handlers map[string][]scenarios.Statement
	order    []string
	// rollsBack: a ROLLBACK other than the empty queue's exit, in a CATCH or not.
	rollsBack bool
}

// step is a statement of the body the program keeps.
type step struct {
	cond []string // the message types it runs for; nil for every type no comparison names
	stmt scenarios.Statement
	// dialog is the variable a BEGIN DIALOG set, for the SEND on it that follows.
	dialog string
}

// readProgram reads an activation procedure's body: the RECEIVE (in WAITFOR or not, with
// TOP and TIMEOUT), or GET CONVERSATION GROUP; WAITFOR DELAY as processing time; the
// SENDs, END CONVERSATIONs, BEGIN DIALOGs and conversation timers under each comparison
// of message_type_name; COMMIT and ROLLBACK. What it cannot map (cursors, EXEC, dynamic
// SQL, MOVE CONVERSATION) is listed in why.
func readProgram(src *procSource, queue string, types map[string]bool) program {
	p := program{proc: scenarios.Procedure{Name: src.name}, handlers: map[string][]scenarios.Statement{}}
	toks := src.stmt.Tokens
	vars := map[string]int64{}
	var steps []step
	var cond []string
	lastType := -1 // the index of the last message type literal, for IN (a, b) lists
	hasReceive, hasWaitfor, hasCommit, hasBegin, hasLoop := false, false, false, false, false
	catch := 0
	typeVars := map[string]string{} // variables a message type's name is assigned to
	recv := ""                      // the variable RECEIVE puts conversation_handle in
	begun := map[string]bool{}      // the variables BEGIN DIALOG puts handles in
	caught := false                 // a CATCH block's statements were seen (and left out)
	var processing time.Duration
	at := func(i int) string { return fmt.Sprintf("%d:%d", toks[i].Pos.Line, toks[i].Pos.Col) }
	word := func(i int, kw string) bool { return i < len(toks) && toks[i].Is(kw) }
	punct := func(i int, v string) bool { return i < len(toks) && toks[i].Kind == Punct && toks[i].Value == v }
	value := func(i int) (int64, bool) {
		if i >= len(toks) {
			return 0, false
		}
		switch t := toks[i]; t.Kind {
		case Number:
			n, err := strconv.ParseInt(t.Value, 10, 64)
			return n, err == nil
		case Variable:
			n, ok := vars[strings.ToLower(t.Value)]
			return n, ok
		}
		return 0, false
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.Kind == Variable && (word(i-1, "DECLARE") || word(i-1, "SET") || punct(i-1, ",")):
			// DECLARE @n INT = 10, SET @n = 10
			j := i + 1
			if j < len(toks) && toks[j].Kind == Word && !punct(j, "=") {
				j++
			}
			if punct(j, "=") {
				if n, ok := value(j + 1); ok {
					vars[strings.ToLower(t.Value)] = n
				}
			}
		case t.Is("WHILE"):
			hasLoop = true
		case t.Is("BEGIN") && word(i+1, "CATCH"):
			catch++
			i++
			if !caught {
				caught = true
				p.understood = append(p.understood, fmt.Sprintf("the CATCH block at %s is the error path: its statements are not read into the program", at(i-1)))
			}
		case t.Is("END") && word(i+1, "CATCH"):
			catch = max(catch-1, 0)
			i++
		case t.Is("BEGIN") && (word(i+1, "TRAN") || word(i+1, "TRANSACTION")):
			hasBegin = true
			i++
		case t.Is("COMMIT"):
			hasCommit = true
		case t.Is("ROLLBACK"):
			exit := false // IF @@ROWCOUNT = 0 BEGIN ROLLBACK; BREAK; END: the empty queue's exit
			for j := i + 1; j < len(toks) && j <= i+4; j++ {
				exit = exit || toks[j].Is("BREAK") || toks[j].Is("RETURN")
			}
			if !exit {
				p.rollsBack = true
			}
			if catch == 0 && !exit {
				p.why = append(p.why, fmt.Sprintf("ROLLBACK at %s outside a CATCH: how often it runs is not known (set rollback_rate)", at(i)))
			}
		case t.Is("WAITFOR") && word(i+1, "DELAY"):
			if i+2 < len(toks) && toks[i+2].Kind == String {
				if d, ok := clockTime(toks[i+2].Value); ok {
					processing += d
					p.understood = append(p.understood, fmt.Sprintf("WAITFOR DELAY '%s' at %s: processing time", toks[i+2].Value, at(i)))
				}
			}
			i += 2
		case t.Is("WAITFOR") && punct(i+1, "("):
			hasWaitfor = true
			end := closing(toks, i+1)
			if end+3 < len(toks)+1 && punct(end+1, ",") && word(end+2, "TIMEOUT") {
				if n, ok := value(end + 3); ok {
					p.proc.WaitFor = time.Duration(n) * time.Millisecond
				} else {
					p.why = append(p.why, fmt.Sprintf("TIMEOUT at %s is not a number or a variable set to one: the reference 5 s is kept", at(end+2)))
				}
			} else {
				p.why = append(p.why, fmt.Sprintf("WAITFOR at %s has no TIMEOUT: it waits for ever, and an activated procedure must end (ACT-8); modelled with the reference 5 s", at(i)))
			}
		case t.Is("GET") && word(i+1, "CONVERSATION") && word(i+2, "GROUP"):
			p.proc.Mode = scenarios.GroupLoop
			hasReceive = true
			p.understood = append(p.understood, fmt.Sprintf("GET CONVERSATION GROUP at %s: mode get-conversation-group", at(i)))
		case t.Is("RECEIVE"):
			hasReceive = true
			if word(i+1, "TOP") && punct(i+2, "(") {
				if n, ok := value(i + 3); ok {
					p.proc.Top = int(n)
				} else {
					p.why = append(p.why, fmt.Sprintf("TOP at %s is not a number or a variable set to one: RECEIVE reads every message of its group", at(i+1)))
				}
			}
			from := i + 1
			if word(from, "TOP") && punct(from+1, "(") {
				from = closing(toks, from+1) + 1
			}
			for j := from; j < len(toks) && !punct(j, ")") && !punct(j, ";"); j++ {
				if toks[j].Kind == Variable && punct(j+1, "=") && word(j+2, "conversation_handle") {
					recv = strings.ToLower(toks[j].Value)
				}
				if word(j, "FROM") && j+1 < len(toks) {
					k := j + 1
					for k+2 < len(toks) && punct(k+1, ".") {
						k += 2
					}
					if q := toks[k].Value; !strings.EqualFold(q, queue) {
						p.why = append(p.why, fmt.Sprintf("RECEIVE at %s reads %s, not the queue %s that activates it", at(i), q, queue))
					}
					break
				}
			}
		case t.Is("SEND") && word(i+1, "ON") && word(i+2, "CONVERSATION"):
			v := ""
			if i+3 < len(toks) {
				v = strings.ToLower(toks[i+3].Value)
			}
			mt := "DEFAULT"
			for j := i + 3; j < len(toks) && j < i+12; j++ {
				if word(j, "MESSAGE") && word(j+1, "TYPE") && j+2 < len(toks) {
					mt = toks[j+2].Value
					break
				}
			}
			if catch > 0 {
				break
			}
			if n := len(steps); n > 0 && steps[n-1].dialog != "" && steps[n-1].dialog == v {
				steps[n-1].stmt.MessageType = mt
				break
			}
			if begun[v] || (recv != "" && v != recv) {
				p.why = append(p.why, fmt.Sprintf("SEND at %s on %s, not the received conversation nor right after the BEGIN DIALOG of it: left out", at(i), toks[i+3].Value))
				break
			}
			steps = append(steps, step{cond: cond, stmt: scenarios.Statement{Kind: scenarios.StatementSend, MessageType: mt}})
		case t.Is("END") && word(i+1, "CONVERSATION"):
			if catch > 0 {
				break
			}
			s := scenarios.Statement{Kind: scenarios.StatementEnd}
			if i+2 < len(toks) {
				v := strings.ToLower(toks[i+2].Value)
				if begun[v] {
					s.Target = scenarios.TargetBegun
				} else if recv != "" && v != recv {
					p.why = append(p.why, fmt.Sprintf("END CONVERSATION at %s on %s, not the received conversation: left out", at(i), toks[i+2].Value))
					break
				}
			}
			for j := i + 2; j < len(toks) && j < i+8; j++ {
				if word(j, "CLEANUP") {
					s.WithCleanup = true
				}
				if word(j, "ERROR") && punct(j+1, "=") {
					if n, ok := value(j + 2); ok {
						s.ErrorCode = int32(n)
					} else {
						s.ErrorCode = 50000
					}
				}
			}
			steps = append(steps, step{cond: cond, stmt: s})
		case t.Is("BEGIN") && word(i+1, "DIALOG"):
			if catch > 0 {
				break
			}
			s := scenarios.Statement{Kind: scenarios.StatementBeginDialog, Messages: 1}
			v := ""
			j := i + 2
			if word(j, "CONVERSATION") {
				j++
			}
			if j < len(toks) && toks[j].Kind == Variable {
				v = strings.ToLower(toks[j].Value)
			}
			for ; j < len(toks) && j < i+30; j++ {
				if word(j, "TO") && word(j+1, "SERVICE") && j+2 < len(toks) {
					s.ToServices = []string{toks[j+2].Value}
				}
				if word(j, "ON") && word(j+1, "CONTRACT") && j+2 < len(toks) {
					s.Contract = toks[j+2].Value
				}
				if word(j, "RELATED_CONVERSATION") || word(j, "RELATED_CONVERSATION_GROUP") {
					p.why = append(p.why, fmt.Sprintf("BEGIN DIALOG at %s WITH %s: read as a begin_dialog in a group of its own (a fan_out is written by hand, docs/programs.md)", at(i), toks[j].Value))
				}
				if punct(j, ";") || (j > i+2 && (word(j, "SEND") || word(j, "END") || word(j, "IF"))) {
					break
				}
			}
			begun[v] = true
			steps = append(steps, step{cond: cond, stmt: s, dialog: v})
		case t.Is("BEGIN") && word(i+1, "CONVERSATION") && word(i+2, "TIMER"):
			if catch > 0 {
				break
			}
			s := scenarios.Statement{Kind: scenarios.StatementTimer, Timeout: time.Minute}
			for j := i + 3; j < len(toks) && j < i+10; j++ {
				if word(j, "TIMEOUT") && punct(j+1, "=") {
					if n, ok := value(j + 2); ok {
						s.Timeout = time.Duration(n) * time.Second
					}
				}
			}
			steps = append(steps, step{cond: cond, stmt: s})
		case t.Is("CURSOR"):
			p.why = append(p.why, fmt.Sprintf("a CURSOR at %s: a loop over rows is not a program's statement", at(i)))
		case t.Is("MOVE") && word(i+1, "CONVERSATION"):
			p.why = append(p.why, fmt.Sprintf("MOVE CONVERSATION at %s is not modelled", at(i)))
		case (t.Is("EXEC") || t.Is("EXECUTE")) && !word(i+1, "AS") && !word(i-1, "WITH"):
			j := i + 1
			if j < len(toks) && toks[j].Kind == Variable && punct(j+1, "=") {
				j += 2 // EXEC @rc = dbo.Proc
			}
			callee := ""
			if j < len(toks) {
				callee = name(toks[j:])
			}
			if strings.EqualFold(callee, "sp_executesql") || punct(i+1, "(") {
				p.why = append(p.why, fmt.Sprintf("dynamic SQL at %s: what it runs is not known", at(i)))
			} else {
				p.why = append(p.why, fmt.Sprintf("EXEC %s at %s: what it does is not modelled (its time belongs in processing_time)", callee, at(i)))
			}
		case (t.Kind == String || (t.Kind == Variable && typeVars[strings.ToLower(t.Value)] != "")) &&
			(punct(i-1, "=") || word(i-1, "WHEN") || punct(i-1, "(") || punct(i-1, ",")):
			name := t.Value
			if t.Kind == Variable {
				name = typeVars[strings.ToLower(t.Value)]
			}
			if sys, ok := systemTypes[strings.ToLower(name)]; ok {
				name = sys
			} else if !types[name] {
				break
			}
			if assigned := assignee(toks, i); assigned != "" {
				typeVars[assigned] = name // DECLARE @end SYSNAME = N'...EndDialog': no comparison
				break
			}
			if punct(i-1, ",") && lastType == i-2 {
				cond = append(cond, name) // IN (N'a', N'b')
			} else {
				cond = []string{name}
			}
			lastType = i
		case t.Is("ELSE") && !word(i+1, "IF"):
			cond = nil
		}
	}
	p.proc.ProcessingTime = sim.Fixed(processing)
	if processing == 0 {
		p.proc.ProcessingTime = sim.Distribution{}
	}
	if !hasReceive {
		p.why = append([]string{"no RECEIVE or GET CONVERSATION GROUP: the body does not read its queue as an activated procedure must (ACT-10)"}, p.why...)
		p.proc = scenarios.Procedure{Name: src.name, ProcessingTime: p.proc.ProcessingTime}
		return p
	}
	p.recognised = true
	if !hasWaitfor {
		p.why = append(p.why, "RECEIVE without WAITFOR: it returns at once on an empty queue; modelled with a 1 ms TIMEOUT")
		p.proc.WaitFor = time.Millisecond
	}
	if !hasLoop {
		p.understood = append(p.understood, "no WHILE loop: the procedure reads once and ends, and activation starts it again; modelled as the loop")
	}
	if hasBegin && !hasCommit {
		p.why = append(p.why, "BEGIN TRANSACTION without COMMIT")
	}
	for _, s := range steps {
		conds := s.cond
		if conds == nil {
			conds = []string{""}
		}
		for _, c := range conds {
			if _, ok := p.handlers[c]; !ok {
				p.order = append(p.order, c)
			}
			p.handlers[c] = append(p.handlers[c], s.stmt)
		}
	}
	return p
}

// assignee returns the variable that the value at i is assigned to (DECLARE @v TYPE = x,
// DECLARE @v = x, SET @v = x, SELECT @v = x), or "" when it is compared.
func assignee(toks []Token, i int) string {
	if i < 2 || toks[i-1].Kind != Punct || toks[i-1].Value != "=" {
		return ""
	}
	v := i - 2
	if toks[v].Kind == Word && v > 0 && toks[v-1].Kind == Variable { // DECLARE @v SYSNAME = x
		v--
	} else if toks[v].Kind == Punct && toks[v].Value == ")" { // DECLARE @v NVARCHAR(256) = x
		for v > 0 && !(toks[v].Kind == Punct && toks[v].Value == "(") {
			v--
		}
		v -= 2
	}
	if v < 1 || toks[v].Kind != Variable {
		return ""
	}
	if b := toks[v-1]; b.Is("DECLARE") || b.Is("SET") || b.Is("SELECT") || (b.Kind == Punct && b.Value == ",") {
		return strings.ToLower(toks[v].Value)
	}
	return ""
}

// closing returns the index of the parenthesis that closes the one at open.
func closing(toks []Token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		if toks[i].Kind == Punct {
			switch toks[i].Value {
			case "(":
				depth++
			case ")":
				depth--
				if depth == 0 {
					return i
				}
			}
		}
	}
	return len(toks) - 1
}

// clockTime reads WAITFOR DELAY's 'hh:mm[:ss[.mmm]]'.
func clockTime(s string) (time.Duration, bool) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	var d time.Duration
	units := []time.Duration{time.Hour, time.Minute}
	for i, u := range units {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 {
			return 0, false
		}
		d += time.Duration(n) * u
	}
	if len(parts) == 3 {
		f, err := strconv.ParseFloat(parts[2], 64)
		if err != nil || f < 0 {
			return 0, false
		}
		d += time.Duration(f * float64(time.Second))
	}
	return d, true
}

// reply is what a target's program does with a request, as a workload's life cycle can
// say it: a SEND of replyType (or none), then END CONVERSATION (or not). ok is false when
// the handler does anything else, which then stays a handler.
func reply(stmts []scenarios.Statement) (replyType string, ends, ok bool) {
	switch {
	case len(stmts) == 0:
		return "", false, true
	case len(stmts) == 1 && stmts[0].Kind == scenarios.StatementEnd && stmts[0].ErrorCode == 0 && !stmts[0].WithCleanup:
		return "", true, true
	case stmts[0].Kind == scenarios.StatementSend && len(stmts) == 1:
		return stmts[0].MessageType, false, true
	case stmts[0].Kind == scenarios.StatementSend && len(stmts) == 2 && stmts[1].Kind == scenarios.StatementEnd &&
		stmts[1].ErrorCode == 0 && !stmts[1].WithCleanup:
		return stmts[0].MessageType, true, true
	}
	return "", false, false
}

var _ = model.Any
