// LUBM Query 14: every undergraduate student.
MATCH (x:UndergraduateStudent)
RETURN x AS X
