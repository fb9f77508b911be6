// LUBM Query 10: students (of any kind) taking GraduateCourse0.
MATCH (x:Student)-[:takesCourse]->(:Resource {uri: 'http://www.Department0.University0.edu/GraduateCourse0'})
RETURN x AS X
