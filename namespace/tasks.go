package namespace

import (
	"strconv"

	"github.com/cayleygraph/quad"
)

// IRI layout of the task board and the mailbox (see iri.go), relative to
// NS.Prefix():
//
//	team:{team}:task:{task}        task node (KindTask)
//	team:{team}:comment:{comment}  task comment node (KindTaskComment)
//	team:{team}:message:{message}  mailbox message node (KindMessage)
//	team:{team}:graph:tasks        the team's task board graph
//	team:{team}:graph:mail         the team's mailbox graph
const (
	segTask    = "task"
	segComment = "comment"
	segMessage = "message"

	graphTasks = "tasks"
	graphMail  = "mail"
)

// Task returns the node of task taskID of team teamID:
// {prefix}team:{teamID}:task:{taskID}. It is the task's global IRI; taskID
// is the short id, unique within the team.
func (ns NS) Task(teamID, taskID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segTask, Escape(taskID))
}

// TaskComment returns the node of comment commentID of team teamID:
// {prefix}team:{teamID}:comment:{commentID}.
func (ns NS) TaskComment(teamID, commentID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segComment, Escape(commentID))
}

// Message returns the node of mailbox message messageID of team teamID:
// {prefix}team:{teamID}:message:{messageID}.
func (ns NS) Message(teamID, messageID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segMessage, Escape(messageID))
}

// TaskGraph names the graph holding team teamID's task board (tasks and
// their comments): {prefix}team:{teamID}:graph:tasks.
func (ns NS) TaskGraph(teamID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segGraph, graphTasks)
}

// MailGraph names the graph holding team teamID's mailbox messages:
// {prefix}team:{teamID}:graph:mail.
func (ns NS) MailGraph(teamID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segGraph, graphMail)
}

// Task board classes.
const (
	ClassTask        Term = "Task"        // a task of a team's task board
	ClassTaskComment Term = "TaskComment" // a note or blocker comment on a task
	ClassMessage     Term = "Message"     // a typed mailbox message between members of a team
)

// Task predicates. Subject: a task node (NS.Task), in the team's task
// graph (NS.TaskGraph).
const (
	TaskTeam          Term = "task:team"          // → team node
	TaskID            Term = "task:id"            // xsd:string, the short id within the team
	TaskSubject       Term = "task:subject"       // xsd:string
	TaskDescription   Term = "task:description"   // xsd:string
	TaskPriority      Term = "task:priority"      // xsd:integer, higher first
	TaskStatus        Term = "task:status"        // xsd:string, one of the task status words
	TaskAssignee      Term = "task:assignee"      // → member node
	TaskCreatedBy     Term = "task:createdBy"     // → member node
	TaskBlockedBy     Term = "task:blockedBy"     // → task node of the same team
	TaskResult        Term = "task:result"        // xsd:string
	TaskError         Term = "task:error"         // xsd:string, why the task failed or was cancelled
	TaskFeedback      Term = "task:feedback"      // xsd:string, the lead's last rejection feedback
	TaskDispatchCount Term = "task:dispatchCount" // xsd:integer
	TaskCreatedAt     Term = "task:createdAt"     // xsd:dateTime
	TaskUpdatedAt     Term = "task:updatedAt"     // xsd:dateTime
	TaskClaimedAt     Term = "task:claimedAt"     // xsd:dateTime, last claim or dispatch
	TaskPaused        Term = "task:paused"        // xsd:boolean, present (true) while paused
	TaskSkipped       Term = "task:skipped"       // xsd:boolean, present (true) on a skipped task
	TaskReviewedBy    Term = "task:reviewedBy"    // → member node of the lead that approved it
	TaskReviewedAt    Term = "task:reviewedAt"    // xsd:dateTime
)

// Task comment predicates. Subject: a comment node (NS.TaskComment), in the
// team's task graph.
const (
	CommentTask      Term = "comment:task"      // → task node
	CommentKind      Term = "comment:kind"      // xsd:string, note or blocker
	CommentText      Term = "comment:text"      // xsd:string
	CommentAuthor    Term = "comment:author"    // → member node
	CommentCreatedAt Term = "comment:createdAt" // xsd:dateTime
)

// Message predicates. Subject: a message node (NS.Message), in the team's
// mail graph (NS.MailGraph).
const (
	MessageType       Term = "message:type"       // xsd:string, one of the message types
	MessageFrom       Term = "message:from"       // → member node of the sender
	MessageTo         Term = "message:to"         // → member node, one per recipient
	MessageBroadcast  Term = "message:broadcast"  // xsd:boolean, present (true) on a broadcast
	MessageReplyTo    Term = "message:replyTo"    // → message node
	MessageTask       Term = "message:task"       // → task node the message is about
	MessageSubject    Term = "message:subject"    // xsd:string
	MessageBody       Term = "message:body"       // xsd:string
	MessageAttachment Term = "message:attachment" // → any IRI, an attachment by reference
	MessageSentAt     Term = "message:sentAt"     // xsd:dateTime
)

// FindingTask links a finding node to the task whose work produced it.
const FindingTask Term = "finding:task" // → task node

// Task status words, the literal values of TaskStatus.
const (
	TaskStatusPending    = "pending"
	TaskStatusInProgress = "in_progress"
	TaskStatusInReview   = "in_review"
	TaskStatusCompleted  = "completed"
	TaskStatusFailed     = "failed"
	TaskStatusCancelled  = "cancelled"
)

var taskTerms = []termInfo{
	{ClassTask, TermClass, "Task", "A task of a team's task board: subject, assignee, priority, dependencies (task:blockedBy) and status pending, in_progress, in_review, completed, failed or cancelled; kept in the team's task graph.", "", "", ""},
	{ClassTaskComment, TermClass, "TaskComment", "A comment on a task: a note, or a blocker (which fails the task and escalates to the lead).", "", "", ""},
	{ClassMessage, TermClass, "Message", "A typed message between members of a team (delegate_work, ask_question, share_finding, ...), direct or broadcast; kept in the team's mail graph.", "", "", ""},

	{TaskTeam, TermProperty, "task team", "The team whose board holds the task.", "Task", "Team", ""},
	{TaskID, TermProperty, "task id", "The task's short id, unique within its team (T1, T2, ...).", "Task", xsd + "string", ""},
	{TaskSubject, TermProperty, "task subject", "One-line subject of the task.", "Task", xsd + "string", ""},
	{TaskDescription, TermProperty, "task description", "What the task asks for.", "Task", xsd + "string", ""},
	{TaskPriority, TermProperty, "task priority", "Priority of the task; higher is handed out first.", "Task", xsd + "integer", ""},
	{TaskStatus, TermProperty, "task status", "Status of the task: pending, in_progress, in_review, completed, failed or cancelled.", "Task", xsd + "string", ""},
	{TaskAssignee, TermProperty, "task assignee", "The member the task is assigned to or claimed by.", "Task", "Member", ""},
	{TaskCreatedBy, TermProperty, "task created by", "The member that created the task.", "Task", "Member", ""},
	{TaskBlockedBy, TermProperty, "blocked by", "A task of the same team that must complete (or be skipped) before this one is handed out.", "Task", "Task", ""},
	{TaskResult, TermProperty, "task result", "The result the assignee reported.", "Task", xsd + "string", ""},
	{TaskError, TermProperty, "task error", "Why the task failed or was cancelled.", "Task", xsd + "string", ""},
	{TaskFeedback, TermProperty, "task feedback", "The lead's feedback of the last rejected review.", "Task", xsd + "string", ""},
	{TaskDispatchCount, TermProperty, "dispatch count", "How many times the task was dispatched or claimed.", "Task", xsd + "integer", ""},
	{TaskCreatedAt, TermProperty, "task created at", "When the task was created.", "Task", xsd + "dateTime", ""},
	{TaskUpdatedAt, TermProperty, "task updated at", "When the task last changed.", "Task", xsd + "dateTime", ""},
	{TaskClaimedAt, TermProperty, "task claimed at", "When the task was last claimed or dispatched.", "Task", xsd + "dateTime", ""},
	{TaskPaused, TermProperty, "task paused", "True while the task is paused; absent otherwise.", "Task", xsd + "boolean", ""},
	{TaskSkipped, TermProperty, "task skipped", "True on a cancelled task that the lead skipped: its dependents go ahead.", "Task", xsd + "boolean", ""},
	{TaskReviewedBy, TermProperty, "reviewed by", "The member (the lead) whose review approved the task.", "Task", "Member", ""},
	{TaskReviewedAt, TermProperty, "reviewed at", "When the review approved the task.", "Task", xsd + "dateTime", ""},

	{CommentTask, TermProperty, "comment task", "The task the comment is on.", "TaskComment", "Task", ""},
	{CommentKind, TermProperty, "comment kind", "note or blocker.", "TaskComment", xsd + "string", ""},
	{CommentText, TermProperty, "comment text", "Text of the comment.", "TaskComment", xsd + "string", ""},
	{CommentAuthor, TermProperty, "comment author", "The member that wrote the comment.", "TaskComment", "Member", ""},
	{CommentCreatedAt, TermProperty, "comment created at", "When the comment was written.", "TaskComment", xsd + "dateTime", ""},

	{MessageType, TermProperty, "message type", "delegate_work, ask_question, share_finding, request_approval, approval, rejection, challenge, vote, task_claimed, task_completed or status.", "Message", xsd + "string", ""},
	{MessageFrom, TermProperty, "message from", "The member that sent the message.", "Message", "Member", ""},
	{MessageTo, TermProperty, "message to", "A recipient of the message; one triple per recipient.", "Message", "Member", ""},
	{MessageBroadcast, TermProperty, "broadcast", "True on a message sent to every other member of the team.", "Message", xsd + "boolean", ""},
	{MessageReplyTo, TermProperty, "reply to", "The message this one answers.", "Message", "Message", ""},
	{MessageTask, TermProperty, "message task", "The task the message is about.", "Message", "Task", ""},
	{MessageSubject, TermProperty, "message subject", "Subject line of the message.", "Message", xsd + "string", ""},
	{MessageBody, TermProperty, "message body", "Text of the message.", "Message", xsd + "string", ""},
	{MessageAttachment, TermProperty, "attachment", "An attachment, by reference: any IRI (a finding, a task, a document).", "Message", "", ""},
	{MessageSentAt, TermProperty, "message sent at", "When the message was sent.", "Message", xsd + "dateTime", ""},

	{FindingTask, TermProperty, "finding task", "The task whose work produced the finding.", "Finding", "Task", ""},
}

// Integer returns n as an xsd:integer literal.
func Integer(n int64) quad.TypedString {
	return quad.TypedString{Value: quad.String(strconv.FormatInt(n, 10)), Type: XSDInteger}
}
