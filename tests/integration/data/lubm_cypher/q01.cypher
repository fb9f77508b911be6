// LUBM Query 1: graduate students taking GraduateCourse0.
MATCH (x:GraduateStudent)-[:takesCourse]->(:Resource {uri: 'http://www.Department0.University0.edu/GraduateCourse0'})
RETURN x AS X
