// LUBM Query 9: students taking a course their advisor (a faculty member) teaches (a triangle).
MATCH (x:Student)-[:advisor]->(y:Faculty)-[:teacherOf]->(z:Course)<-[:takesCourse]-(x)
RETURN x AS X, y AS Y, z AS Z
