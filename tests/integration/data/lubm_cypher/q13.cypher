// LUBM Query 13: alumni of University0 (hasAlumnus is the inverse of degreeFrom, materialised).
MATCH (:Resource {uri: 'http://www.University0.edu'})-[:hasAlumnus]->(x:Person)
RETURN x AS X
