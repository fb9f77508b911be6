// LUBM Query 7: students taking a course AssociateProfessor0 teaches, with the course.
MATCH (:Resource {uri: 'http://www.Department0.University0.edu/AssociateProfessor0'})-[:teacherOf]->(y:Course)<-[:takesCourse]-(x:Student)
RETURN x AS X, y AS Y
